import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { SUBAGENT_QUEUE } from '@orrery/protocol';
import { bullConnection, bullTelemetry, queuePrefix } from '@orrery/runtime';
import { SUBAGENT_CONFIG, type SubagentConfig } from './config/subagent-config';
import { SubagentConfigModule } from './config/subagent-config.module';
import { EnginesModule } from './engines/engines.module';
import { IngestModule } from './ingest/ingest.module';
import { RedisStartup } from './redis/redis-startup';
import { SubagentTasksProcessor } from './tasks/subagent-tasks.processor';
import { TracingShutdown } from './telemetry/tracing-shutdown';
import { JsonLoggingModule } from '@orrery/runtime';

@Module({
  imports: [
    JsonLoggingModule.forService('orrery-worker'),
    SubagentConfigModule,
    EnginesModule,
    BullModule.forRootAsync({
      imports: [SubagentConfigModule],
      inject: [SUBAGENT_CONFIG],
      useFactory: (config: SubagentConfig) => ({ connection: bullConnection(config, { maxRetriesPerRequest: null }), prefix: queuePrefix(config.QUEUE_PREFIX), telemetry: bullTelemetry() }),
    }),
    BullModule.registerQueue({ name: SUBAGENT_QUEUE }),
    IngestModule,
  ],
  providers: [RedisStartup, SubagentTasksProcessor, TracingShutdown],
})
export class SubagentsModule {}
