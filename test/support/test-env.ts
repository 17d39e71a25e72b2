import { dropPrefix as dropKeys } from '@orrery/runtime';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const ROOT = resolve(__dirname, '..', '..');
export const FIXTURE_CORPUS = resolve(ROOT, 'test', 'fixtures', 'kestrel.jsonl');

/** A key prefix of its own per test file, so test files never see each other's queues or runs. */
export function uniquePrefix(name: string): string {
  return `t-${name}-${randomBytes(3).toString('hex')}`;
}

export function redisClient(): Redis {
  return new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
}

/** Deletes every key under a prefix. */
export async function dropPrefix(prefix: string): Promise<void> {
  await dropKeys(REDIS_URL, prefix);
}

export async function countKeys(prefix: string): Promise<number> {
  const redis = redisClient();
  try {
    let cursor = '0';
    let n = 0;
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      n += keys.length;
    } while (cursor !== '0');
    return n;
  } finally {
    redis.disconnect();
  }
}
