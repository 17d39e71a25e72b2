import { describeRedisLocation } from '@orrery/runtime';
import { ensureRedis, type RedisHandle } from '../redis/ensure-redis';
import { cliDeployment, dropServiceKeys } from './cli-deployment';
import { type InProcessService, startInProcessService } from './in-process-service';

export interface LocalService {
  url: string;
  /** The queue prefix its runs live under (for `npm run replay`). */
  prefix: string;
  close(): Promise<void>;
}

/**
 * Redis (REDIS_URL, localhost, or a redis-server of its own) and the coordinator and a worker in this process,
 * keyless on loopback, under a queue prefix of its own unless QUEUE_PREFIX names a deployment to join
 * (`cliDeployment`). Progress goes to `log` (stderr).
 */
export async function startLocalService(opts: { log: (line: string) => void }): Promise<LocalService> {
  const redis: RedisHandle = await ensureRedis();
  const deployment = cliDeployment();
  let service: InProcessService | undefined;
  try {
    process.env.REDIS_URL = redis.location.REDIS_URL;
    process.env.API_KEYS = '';
    process.env.ADMIN_API_KEYS = '';
    Object.assign(process.env, deployment.env);
    opts.log(`[orrery] Redis: ${describeRedisLocation(redis.location)}${redis.owned ? ' (started for this run)' : ''}; starting the coordinator and a worker in-process (queue prefix ${deployment.prefix})\n`);
    service = await startInProcessService();
  } catch (err) {
    await redis.stop().catch(() => undefined);
    throw err;
  }
  const started = service;
  return {
    url: started.url,
    prefix: deployment.prefix,
    close: async () => {
      await started.close().catch(() => undefined);
      if (deployment.own && !redis.owned) await dropServiceKeys(redis.location, deployment.prefix).catch(() => undefined);
      await redis.stop().catch(() => undefined);
    },
  };
}
