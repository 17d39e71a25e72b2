import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { INGEST_QUEUE } from '@orrery/protocol';
import { IngestState } from '@orrery/runtime';
import type { RedisClient } from '@orrery/runtime';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { EnginesModule } from '../engines/engines.module';
import { QueuesModule } from '../queues/queues.module';
import { REDIS } from '../redis/redis.module';
import { CorpusIngest } from './corpus-ingest.service';

/** Corpus ingest: the ingest queue and the ingest state, for POST /v1/corpora and the 409 on a corpus still ingesting. */
@Module({
  imports: [EnginesModule, QueuesModule, BullModule.registerQueue({ name: INGEST_QUEUE })],
  providers: [
    { provide: IngestState, inject: [REDIS, COORDINATOR_CONFIG], useFactory: (redis: RedisClient, config: CoordinatorConfig) => new IngestState(redis, config.QUEUE_PREFIX) },
    CorpusIngest,
  ],
  exports: [CorpusIngest, BullModule],
})
export class CorporaModule {}
