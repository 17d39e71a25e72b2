import { Module } from '@nestjs/common';
import { RunsModule } from '../runs/runs.module';
import { MetricsController } from '../metrics/metrics.controller';
import { AdminJudgeController } from './admin-judge.controller';
import { CorporaController } from './corpora.controller';
import { HealthController } from './health.controller';
import { ResearchController } from './research.controller';
import { WebhooksController } from './webhooks.controller';

@Module({ imports: [RunsModule], controllers: [ResearchController, AdminJudgeController, CorporaController, HealthController, MetricsController, WebhooksController] })
export class ApiModule {}
