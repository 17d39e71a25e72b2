import { randomBytes } from 'node:crypto';
import { defaultStoreFile } from '@orrery/passages';
import { QueueNameSchema } from '@orrery/protocol';
import { bullConnection, closeBullConnection, connectRedis, masters, queuePrefix, type RedisLocation } from '@orrery/runtime';
import { Queue } from 'bullmq';

/** How long the CLI's own runs stay in Redis once they end: long enough to `npm run replay` one, not for days. */
export const CLI_RUN_RETENTION_SECONDS = 600;

export interface CliDeployment {
  /** The queue prefix the in-process service uses. */
  prefix: string;
  /** True when the prefix is the CLI's own (no QUEUE_PREFIX given): nothing else consumes its queues. */
  own: boolean;
  /** Settings the in-process service starts with, on top of the environment. */
  env: Record<string, string>;
}

/**
 * The in-process service's place in Redis. Without QUEUE_PREFIX it takes a prefix of its own, so a server on the
 * same Redis (`npm start`, default prefix) never takes its steps, nor it theirs; with QUEUE_PREFIX it joins that
 * deployment. Its runs expire CLI_RUN_RETENTION_SECONDS after they end unless RUN_RETENTION_SECONDS says otherwise.
 * Its passage store is one of the CLI's own that outlives the prefix (unless CORPUS_STORE names one), so a file asked
 * about again is found there unchanged and not read again.
 */
export function cliDeployment(env: NodeJS.ProcessEnv = process.env): CliDeployment {
  const own = !env.QUEUE_PREFIX;
  const prefix = own ? `orrery-cli-${randomBytes(4).toString('hex')}` : env.QUEUE_PREFIX!;
  const store: Record<string, string> = own && !env.CORPUS_STORE ? { CORPUS_STORE: defaultStoreFile({ ...env, QUEUE_PREFIX: 'orrery-cli' }) } : {};
  return { prefix, own, env: { QUEUE_PREFIX: prefix, RUN_RETENTION_SECONDS: env.RUN_RETENTION_SECONDS || String(CLI_RUN_RETENTION_SECONDS), ...store } };
}

/**
 * Once the CLI's own service has stopped: its queues are obliterated (BullMQ's own removal of every key a queue
 * has, under `{prefix}:`), and every other key under its prefix but the runs' (indexes, counters) is deleted; the
 * runs' keys carry their retention and leave on their own. Returns how many keys the second part deleted.
 */
export async function dropServiceKeys(location: RedisLocation, prefix: string): Promise<number> {
  await obliterateQueues(location, prefix);
  const redis = connectRedis(location, { maxRetriesPerRequest: 3 });
  const runs = `${prefix}:run:`;
  let dropped = 0;
  try {
    await redis.ping();
    // Keys live on every master of a Cluster: each is scanned, and its keys unlinked there one by one (they span slots).
    for (const node of masters(redis)) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
        cursor = next;
        for (const key of keys.filter((k) => !k.startsWith(runs))) dropped += await node.unlink(key);
      } while (cursor !== '0');
    }
    return dropped;
  } finally {
    redis.disconnect();
  }
}

/** Removes every queue of the service under `prefix`, jobs and all: nothing consumes them once it has stopped. */
async function obliterateQueues(location: RedisLocation, prefix: string): Promise<void> {
  const connection = bullConnection(location, { maxRetriesPerRequest: 3 });
  try {
    for (const name of QueueNameSchema.options) {
      const queue = new Queue(name, { connection, prefix: queuePrefix(prefix) });
      try {
        await queue.obliterate({ force: true });
      } finally {
        await queue.close();
      }
    }
  } finally {
    closeBullConnection(connection);
  }
}
