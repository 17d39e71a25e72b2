import { Redis } from 'ioredis';
import { queuePrefix } from './redis-connection';

/** Whether a Redis answers PING at `url`, without retrying or queueing. */
export async function redisAnswers(url: string, timeoutMs = 1500): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** Deletes every key under `prefix:` and its queues' `{prefix}:` (a benchmark's or a test's own namespace). */
export async function dropPrefix(url: string, prefix: string): Promise<number> {
  const redis = new Redis(url, { maxRetriesPerRequest: 3 });
  let dropped = 0;
  try {
    for (const pattern of [`${prefix}:*`, `${queuePrefix(prefix)}:*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern.replace(/[{}[\]]/g, '\\$&'), 'COUNT', 1000);
        cursor = next;
        if (keys.length) dropped += await redis.del(...keys);
      } while (cursor !== '0');
    }
    return dropped;
  } finally {
    redis.disconnect();
  }
}
