import type { ConnectionOptions, RedisOptions as BullRedisOptions } from 'bullmq';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { formatZodError } from '@orrery/protocol';
import { z } from 'zod';

/** A connection to the deployment's Redis: one node (or a Sentinel-managed one), or a Redis Cluster. */
export type RedisClient = Redis | Cluster;

const hostPort = z
  .string()
  .regex(/^[^\s:,]+:\d{1,5}$/, 'expected host:port')
  .transform((s) => ({ host: s.slice(0, s.lastIndexOf(':')), port: Number(s.slice(s.lastIndexOf(':') + 1)) }));
const hostPorts = z
  .string()
  .optional()
  .transform((v) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean))
  .pipe(z.array(hostPort));

/**
 * Where Redis is, as every process reads it from its environment: REDIS_URL (one node; also the user, password and
 * TLS of the other two), REDIS_CLUSTER_NODES (a Redis Cluster's seed nodes) or REDIS_SENTINELS with
 * REDIS_SENTINEL_MASTER (the master that Sentinel elects).
 */
export const redisLocationFields = {
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  REDIS_CLUSTER_NODES: hostPorts,
  REDIS_SENTINELS: hostPorts,
  REDIS_SENTINEL_MASTER: z.string().min(1).optional(),
};
export type RedisLocation = z.infer<z.ZodObject<typeof redisLocationFields>>;

/** The checks across fields, for a config schema's superRefine. */
export function checkRedisLocation(c: RedisLocation, ctx: z.RefinementCtx): void {
  if (c.REDIS_CLUSTER_NODES.length && c.REDIS_SENTINELS.length) ctx.addIssue({ code: 'custom', path: ['REDIS_CLUSTER_NODES'], message: 'set REDIS_CLUSTER_NODES or REDIS_SENTINELS, not both' });
  if (c.REDIS_SENTINELS.length && !c.REDIS_SENTINEL_MASTER) ctx.addIssue({ code: 'custom', path: ['REDIS_SENTINEL_MASTER'], message: 'REDIS_SENTINELS needs REDIS_SENTINEL_MASTER, the name of the master the sentinels watch' });
}

/** Where Redis is, read from an environment with the same checks every service's config makes; a clear error when unusable. */
export function readRedisLocation(env: NodeJS.ProcessEnv = process.env): RedisLocation {
  const parsed = z.object(redisLocationFields).superRefine(checkRedisLocation).safeParse(env);
  if (!parsed.success) throw new Error(`Redis settings: ${formatZodError(parsed.error)}`);
  return parsed.data;
}

/** One line for a person: where the connection goes. */
export function describeRedisLocation(location: RedisLocation): string {
  const nodes = (xs: { host: string; port: number }[]) => xs.map((n) => `${n.host}:${n.port}`).join(',');
  if (location.REDIS_CLUSTER_NODES.length) return `the Redis Cluster at ${nodes(location.REDIS_CLUSTER_NODES)}`;
  if (location.REDIS_SENTINELS.length) return `master ${location.REDIS_SENTINEL_MASTER} behind the sentinels at ${nodes(location.REDIS_SENTINELS)}`;
  const u = new URL(location.REDIS_URL);
  return `${u.protocol}//${u.host}`;
}

/** What REDIS_URL says beyond host and port: credentials, database and TLS, for every kind of connection. */
function urlOptions(url: string): { username?: string; password?: string; tls?: object } {
  const u = new URL(url);
  return {
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/**
 * The BullMQ key prefix of a deployment: one hash tag, so that every queue's keys (and a flow's parent and
 * children, in two queues) sit in one cluster slot, as BullMQ's Lua scripts require on a Redis Cluster.
 */
export const queuePrefix = (prefix: string): string => `{${prefix}}`;

/** A new client of the deployment's Redis; `options` apply to each node's connection. */
export function connectRedis(location: RedisLocation, options: RedisOptions = {}): RedisClient {
  if (location.REDIS_CLUSTER_NODES.length) {
    const { enableOfflineQueue, lazyConnect, ...perNode } = options;
    return new Cluster(location.REDIS_CLUSTER_NODES, {
      redisOptions: { ...urlOptions(location.REDIS_URL), ...perNode },
      ...(enableOfflineQueue !== undefined ? { enableOfflineQueue } : {}),
      ...(lazyConnect !== undefined ? { lazyConnect } : {}),
      // A failover moves slots: look for the new master soon, and keep trying while the cluster re-forms.
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 300,
      retryDelayOnTryAgain: 200,
      clusterRetryStrategy: (times) => Math.min(100 * times, 2000),
    });
  }
  if (location.REDIS_SENTINELS.length) {
    return new Redis({ ...urlOptions(location.REDIS_URL), ...options, sentinels: location.REDIS_SENTINELS, name: location.REDIS_SENTINEL_MASTER! });
  }
  return new Redis(location.REDIS_URL, options);
}

/**
 * What BullMQ is given as its connection: options it makes its own connections from on one node or behind
 * Sentinel; on a Cluster, a client (BullMQ takes no seed nodes), which Workers and QueueEvents duplicate for
 * their blocking reads.
 */
export function bullConnection(location: RedisLocation, options: BullRedisOptions = {}): ConnectionOptions {
  if (location.REDIS_CLUSTER_NODES.length) return connectRedis(location, options as RedisOptions) as Cluster;
  if (location.REDIS_SENTINELS.length) return { ...urlOptions(location.REDIS_URL), ...options, sentinels: location.REDIS_SENTINELS, name: location.REDIS_SENTINEL_MASTER! };
  return { url: location.REDIS_URL, ...options };
}

/**
 * Closes what `bullConnection` made once the queues, workers and flow producers on it are closed: BullMQ leaves a
 * client it was handed (the Cluster's) to its owner, and an open one keeps refreshing its slots, and the process
 * alive, after the nodes are gone. Options (one node, Sentinel) hold no connection of their own.
 */
export function closeBullConnection(connection: ConnectionOptions): void {
  if (connection instanceof Cluster || connection instanceof Redis) connection.disconnect();
}

/** Where keys live: every master of a Cluster, or the one node. */
export function masters(client: RedisClient): Redis[] {
  return client instanceof Cluster ? client.nodes('master') : [client];
}
