import { BullModule } from '@nestjs/bullmq';
import { Inject, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { openPassageStore, type PassageStore } from '@orrery/passages';
import { INGEST_QUEUE } from '@orrery/protocol';
import { connectRedis, IngestState, type RedisClient } from '@orrery/runtime';
import { SUBAGENT_CONFIG, type SubagentConfig } from '../config/subagent-config';
import { SubagentConfigModule } from '../config/subagent-config.module';
import { IngestProcessor } from './ingest.processor';
import { INGEST_STATE, PASSAGE_STORE } from './ingest.tokens';

const STATE_REDIS = Symbol('INGEST_STATE_REDIS');

/** The ingest side of a worker: the ingest queue's processor, the passage store it writes, and the ingest state. */
@Module({
  imports: [SubagentConfigModule, BullModule.registerQueue({ name: INGEST_QUEUE })],
  providers: [
    { provide: PASSAGE_STORE, useFactory: () => openPassageStore() },
    {
      provide: STATE_REDIS,
      inject: [SUBAGENT_CONFIG],
      useFactory: (config: SubagentConfig) => {
        const redis = connectRedis(config, { maxRetriesPerRequest: 3, connectionName: 'orrery-ingest-state' });
        redis.on('error', (err) => new Logger('IngestState').warn(`redis: ${err.message}`));
        return redis;
      },
    },
    { provide: INGEST_STATE, inject: [STATE_REDIS, SUBAGENT_CONFIG], useFactory: (redis: RedisClient, config: SubagentConfig) => new IngestState(redis, config.QUEUE_PREFIX) },
    IngestProcessor,
  ],
})
export class IngestModule implements OnApplicationShutdown {
  constructor(
    @Inject(PASSAGE_STORE) private readonly store: PassageStore,
    @Inject(STATE_REDIS) private readonly redis: RedisClient,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close().catch(() => undefined);
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
