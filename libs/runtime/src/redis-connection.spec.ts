import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkRedisLocation, queuePrefix, redisLocationFields } from './redis-connection';

const schema = z.object(redisLocationFields).superRefine(checkRedisLocation);
const problems = (env: Record<string, string>) => {
  const r = schema.safeParse(env);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('where Redis is', () => {
  it('reads seed nodes and sentinels as host:port lists', () => {
    const c = schema.parse({ REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-b:7001' });
    expect(c.REDIS_CLUSTER_NODES).toEqual([{ host: '10.0.0.1', port: 7000 }, { host: 'redis-b', port: 7001 }]);
    expect(c.REDIS_SENTINELS).toEqual([]);
    expect(c.REDIS_URL).toBe('redis://127.0.0.1:6379');
  });

  it('refuses what cannot work, saying why', () => {
    expect(problems({ REDIS_CLUSTER_NODES: 'redis-a' })).toEqual(['REDIS_CLUSTER_NODES.0: expected host:port']);
    expect(problems({ REDIS_SENTINELS: 'a:26379' })).toEqual(['REDIS_SENTINEL_MASTER: REDIS_SENTINELS needs REDIS_SENTINEL_MASTER, the name of the master the sentinels watch']);
    expect(problems({ REDIS_SENTINELS: 'a:26379', REDIS_SENTINEL_MASTER: 'm', REDIS_CLUSTER_NODES: 'b:7000' })).toEqual(['REDIS_CLUSTER_NODES: set REDIS_CLUSTER_NODES or REDIS_SENTINELS, not both']);
  });

  it("puts every queue of a deployment under one hash tag", () => {
    expect(queuePrefix('orrery')).toBe('{orrery}');
  });
});
