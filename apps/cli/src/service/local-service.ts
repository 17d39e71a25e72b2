import { ensureRedis, type RedisHandle } from '../redis/ensure-redis';
import { type InProcessService, startInProcessService } from './in-process-service';

export interface LocalService {
  url: string;
  close(): Promise<void>;
}

/**
 * Redis (REDIS_URL, localhost, or a redis-server of its own) and the coordinator and a worker in this process,
 * keyless on loopback (REDIS_URL is set to the Redis it uses). Progress goes to `log` (stderr).
 */
export async function startLocalService(opts: { log: (line: string) => void }): Promise<LocalService> {
  const redis: RedisHandle = await ensureRedis();
  let service: InProcessService | undefined;
  try {
    process.env.REDIS_URL = redis.url;
    process.env.API_KEYS = '';
    process.env.ADMIN_API_KEYS = '';
    opts.log(`[orrery] Redis at ${redis.url}${redis.owned ? ' (started for this run)' : ''}; starting the coordinator and a worker in-process\n`);
    service = await startInProcessService();
  } catch (err) {
    await redis.stop().catch(() => undefined);
    throw err;
  }
  const started = service;
  return {
    url: started.url,
    close: async () => {
      await started.close().catch(() => undefined);
      await redis.stop().catch(() => undefined);
    },
  };
}
