import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { SUBAGENT_QUEUE } from '@orrery/protocol';
import type { Queue } from 'bullmq';
import { SUBAGENT_CONFIG, type SubagentConfig } from '../config/subagent-config';
import { checkEvictionPolicy, connectRedis } from '@orrery/runtime';

/** At startup: an error listener on the worker process's queue handle, and the Redis eviction-policy check. */
@Injectable()
export class RedisStartup implements OnModuleInit {
  private readonly logger = new Logger('Redis');
  constructor(
    @InjectQueue(SUBAGENT_QUEUE) private readonly queue: Queue,
    @Inject(SUBAGENT_CONFIG) private readonly config: SubagentConfig,
  ) {
    // An EventEmitter 'error' without a listener throws: a Redis restart would crash the worker.
    queue.on('error', (err) => this.logger.warn(`queue ${queue.name}: ${err.message}`));
  }

  async onModuleInit(): Promise<void> {
    const config = this.config;
    const redis = connectRedis(config, { maxRetriesPerRequest: 1, connectionName: 'orrery-startup-check' });
    redis.on('error', () => undefined);
    try {
      await checkEvictionPolicy(redis, config.STRICT_REDIS === '1', this.logger);
    } finally {
      redis.disconnect();
    }
  }
}
