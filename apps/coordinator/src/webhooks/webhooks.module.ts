import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { WEBHOOK_QUEUE } from '@orrery/protocol';
import { QueuesModule } from '../queues/queues.module';
import { WebhookDeliveriesProcessor } from './webhook-deliveries.processor';
import { WebhookLog } from './webhook-log';
import { WebhookNotifier } from './webhook-notifier.service';
import { WebhookSecretStore } from './webhook-secret-store';
import { WebhookSecrets } from './webhook-secrets.service';
import { WebhookTargets } from './webhook-targets.service';

/** Completion webhooks: the check a URL passes when a run is created, the queue of deliveries, their log. */
@Module({
  imports: [QueuesModule, BullModule.registerQueue({ name: WEBHOOK_QUEUE })],
  providers: [WebhookNotifier, WebhookSecrets, WebhookSecretStore, WebhookLog, WebhookTargets, WebhookDeliveriesProcessor],
  exports: [WebhookNotifier, WebhookSecrets, WebhookLog, WebhookTargets, BullModule],
})
export class WebhooksModule {}
