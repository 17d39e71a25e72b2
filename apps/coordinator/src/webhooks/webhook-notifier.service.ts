import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { type Run, type RunWaiting, WEBHOOK_QUEUE, type WatchChanges, type WebhookEventType, type WebhookJob } from '@orrery/protocol';
import type { Queue } from 'bullmq';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';

const DAY = 24 * 3600;

/**
 * Queues a run's webhook for an event. The job id is the event's (a run ends once; it pauses for review once
 * per round), so a step that runs twice queues one delivery, and that id is the `webhook-id` receivers see.
 */
@Injectable()
export class WebhookNotifier {
  private readonly logger = new Logger(WebhookNotifier.name);
  constructor(
    @InjectQueue(WEBHOOK_QUEUE) private readonly queue: Queue,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  /** `watch.changed`: a watch's run found its answer changed, sent to the watch's webhook with what changed. */
  async notifyWatch(run: Run, watch: { id: string; question: string; webhook: { url: string } }, changes: WatchChanges): Promise<void> {
    await this.notify({ ...run, webhook: watch.webhook }, 'watch.changed', undefined, { id: watch.id, question: watch.question, changes });
  }

  async notify(run: Run, type: WebhookEventType, waiting?: RunWaiting, watch?: NonNullable<WebhookJob['payload']['data']['watch']>): Promise<void> {
    if (!run.webhook) return;
    const status = type === 'run.done' || type === 'watch.changed' ? 'done' : type === 'run.failed' ? 'failed' : type === 'run.waiting' ? 'waiting' : 'needs_review';
    // A run waits on the provider once per outage.
    const webhookId = watch ? `${run.id}.webhook.watch-changed` : `${run.id}.webhook.${status}${status === 'needs_review' ? `.${run.rounds.length}` : status === 'waiting' ? `.${waiting?.outageId ?? 'outage'}` : ''}`;
    const self = `/v1/research/${run.id}`;
    const error = status === 'failed' ? run.errors.at(-1)?.message : undefined;
    const job: WebhookJob = {
      runId: run.id,
      owner: run.owner,
      url: run.webhook.url,
      webhookId,
      payload: {
        type,
        timestamp: new Date().toISOString(),
        data: { id: run.id, status, topic: run.topic, ...(error ? { error } : {}), ...(waiting ? { waiting: { reason: waiting.reason, since: waiting.since } } : {}), ...(watch ? { watch } : {}), links: { self, report: `${self}/report`, events: `${self}/events` } },
      },
    };
    const { JOB_RETENTION_SECONDS: age, JOB_RETENTION_COUNT: count } = this.config;
    try {
      await this.queue.add(type, job, {
        jobId: webhookId,
        attempts: this.config.WEBHOOK_ATTEMPTS,
        backoff: { type: 'exponential', delay: this.config.WEBHOOK_BACKOFF_MS },
        removeOnComplete: { age, count },
        removeOnFail: { age: Math.max(age, 7 * DAY), count },
      });
    } catch (err) {
      // The run's own state is written already; a webhook lost to Redis going away must not fail the step.
      this.logger.warn(`run ${run.id}: webhook ${type} not queued: ${(err as Error).message}`);
    }
  }
}
