import { Module } from '@nestjs/common';
import { QueuesModule } from '../queues/queues.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';

/** This replica's Prometheus metrics, on GET /metrics; the webhooks' queue is among the queues it counts. */
@Module({ imports: [QueuesModule, WebhooksModule], controllers: [MetricsController], providers: [MetricsService], exports: [MetricsService] })
export class MetricsModule {}
