import { dropPrefix as dropKeys } from '@orrery/runtime';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { resolve } from 'node:path';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const ROOT = resolve(__dirname, '..', '..');
export const FIXTURE_CORPUS = resolve(ROOT, 'test', 'fixtures', 'kestrel.jsonl');
/**
 * What vitest.config.mts sets for a process a test spawns with an env of its own: ORRERY_DATA_DIR, so its default store
 * stays out of the home folder, and NODE_COMPILE_CACHE, so it reuses the modules other processes compiled.
 */
export const SPAWN_ENV: Record<string, string> = Object.fromEntries(
  (['ORRERY_DATA_DIR', 'NODE_COMPILE_CACHE'] as const).flatMap((k) => (process.env[k] ? [[k, process.env[k]]] : [])),
);

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

/** A bearer key as the service requires one: 64 hex characters, like `openssl rand -hex 32`. */
export function newApiKey(): string {
  return randomBytes(32).toString('hex');
}

/**
 * A Redis ACL user of its own, so that a test can count the connections one process holds in `CLIENT LIST`
 * (`user=<name>`) on the Redis other tests share. `url` logs in as it; `drop()` deletes it and its connections.
 */
export async function aclUser(name: string): Promise<{ name: string; url: string; connections(): Promise<number>; drop(): Promise<void> }> {
  const user = `${name}-${randomBytes(3).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  const admin = redisClient();
  await admin.call('ACL', 'SETUSER', user, 'on', `>${password}`, '~*', '&*', '+@all');
  const base = new URL(REDIS_URL);
  base.username = user;
  base.password = password;
  return {
    name: user,
    url: base.toString(),
    connections: async () => String(await admin.call('CLIENT', 'LIST')).split('\n').filter((l) => l.includes(` user=${user} `)).length,
    drop: async () => {
      await admin.call('ACL', 'DELUSER', user).catch(() => undefined);
      admin.disconnect();
    },
  };
}

/** A raw HTTP request (fetch cannot set Host), answering status, headers and body. */
export function rawRequest(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}
