import { Global, Inject, Logger, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { RedisHealth } from './redis-health';
import { RunKeys } from './run-keys';
import { checkEvictionPolicy, connectRedis, type RedisClient } from '@orrery/runtime';

export const REDIS = Symbol('REDIS');

/** The coordinator's own Redis connection for run state and events (BullMQ keeps its own). */
@Global()
@Module({
  providers: [
    { provide: RunKeys, inject: [COORDINATOR_CONFIG], useFactory: (config: CoordinatorConfig) => new RunKeys(config.QUEUE_PREFIX) },
    {
      provide: REDIS,
      inject: [COORDINATOR_CONFIG],
      useFactory: (config: CoordinatorConfig) => {
        const logger = new Logger('Redis');
        const redis = connectRedis(config, { maxRetriesPerRequest: 1 });
        redis.on('error', (err) => logger.warn(`redis: ${err.message}`));
        return redis;
      },
    },
    { provide: RedisHealth, inject: [REDIS], useFactory: (redis: RedisClient) => new RedisHealth(redis) },
  ],
  exports: [REDIS, RunKeys, RedisHealth],
})
export class RedisModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  /** Refuses to start on an evicting Redis when STRICT_REDIS=1; warns otherwise. */
  async onModuleInit(): Promise<void> {
    await checkEvictionPolicy(this.redis, this.config.STRICT_REDIS === '1', new Logger('Redis'));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
