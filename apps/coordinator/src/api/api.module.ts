import { Module } from '@nestjs/common';
import { BreakerModule } from '../breaker/breaker.module';
import { CorporaModule } from '../corpora/corpora.module';
import { EnginesModule } from '../engines/engines.module';
import { JudgeModule } from '../judge/judge.module';
import { QueuesModule } from '../queues/queues.module';
import { RunsModule } from '../runs/runs.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { AdminJudgeController } from './admin-judge.controller';
import { CorporaController } from './corpora.controller';
import { HealthController } from './health.controller';
import { ResearchController } from './research.controller';
import { WebhooksController } from './webhooks.controller';

@Module({
  imports: [RunsModule, BreakerModule, JudgeModule, EnginesModule, CorporaModule, QueuesModule, WebhooksModule],
  controllers: [ResearchController, AdminJudgeController, CorporaController, HealthController, WebhooksController],
})
export class ApiModule {}
