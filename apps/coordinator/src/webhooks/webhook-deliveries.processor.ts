import { Processor, WorkerHost } from '@nestjs/bullmq';
import { type BeforeApplicationShutdown, Inject, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { ActiveJobs } from '@orrery/runtime';
import { WEBHOOK_QUEUE, WebhookJobSchema } from '@orrery/protocol';
import { type Job, UnrecoverableError } from 'bullmq';
import { Webhook } from 'standardwebhooks';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { sendWebhook } from './send-webhook';
import { WebhookLog } from './webhook-log';
import { WebhookRefusedError } from './webhook-refused.error';
import { WebhookSecrets } from './webhook-secrets.service';
import { webhookTarget } from './webhook-target';
import { StepHold } from '../queues/step-hold';

/**
 * Delivers webhooks: one POST per attempt, signed as Standard Webhooks specifies (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`) with the owner's
 * secret. Anything but a 2xx is retried with exponential backoff; a target the SSRF rules refuse is not.
 * Every attempt goes to the run's delivery log.
 */
@Processor(WEBHOOK_QUEUE)
export class WebhookDeliveriesProcessor extends WorkerHost implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhookDeliveriesProcessor.name);
  private readonly active = new ActiveJobs();
  private readonly allowed: ReadonlySet<string>;

  constructor(
    private readonly secrets: WebhookSecrets,
    private readonly log: WebhookLog,
    private readonly hold: StepHold,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {
    super();
    this.allowed = new Set(config.WEBHOOK_ALLOWED_HOSTS);
  }

  onApplicationBootstrap(): void {
    this.worker.on('error', (err) => this.logger.warn(`webhook worker: ${err.message}`));
  }

  /**
   * SIGTERM: deliveries in hand get SHUTDOWN_GRACE_MS like steps, then go back to the queue (a receiver dedupes by
   * webhook-id). Without this the worker's close waited for each POST, up to WEBHOOK_TIMEOUT_MS past the grace.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.active.drain(this.worker, this.config.SHUTDOWN_GRACE_MS, this.logger);
  }

  process(job: Job, token?: string): Promise<void> {
    return this.active.track(job, token, () => this.deliver(job));
  }

  private async deliver(job: Job): Promise<void> {
    const parsed = WebhookJobSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`invalid webhook job: ${parsed.error.message}`);
    const { runId, owner, url, webhookId, payload } = parsed.data;
    const attempt = job.attemptsMade + 1;
    const last = attempt >= (job.opts.attempts ?? 1);
    const started = Date.now();
    const body = JSON.stringify(payload);
    const sentAt = new Date();
    const signature = new Webhook(await this.secrets.forOwner(owner)).sign(webhookId, sentAt, body);
    const headers = { 'webhook-id': webhookId, 'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)), 'webhook-signature': signature };
    let status: number | undefined;
    let error: string | undefined;
    let refused = false;
    await this.hold.reached('webhook.sending', runId);
    try {
      const target = webhookTarget(url, this.allowed);
      status = (await sendWebhook(target, body, headers, this.config.WEBHOOK_TIMEOUT_MS)).status;
      if (status >= 300 && status < 400) error = `the receiver answered ${status}; redirects are not followed`;
      else if (status < 200 || status >= 300) error = `the receiver answered ${status}`;
    } catch (err) {
      refused = err instanceof WebhookRefusedError;
      error = (err as Error).message;
    }
    const ok = error === undefined;
    await this.log.add(runId, {
      webhookId,
      type: payload.type,
      attempt,
      at: sentAt.toISOString(),
      ok,
      ...(status !== undefined ? { status } : {}),
      ...(error !== undefined ? { error } : {}),
      ms: Date.now() - started,
      retrying: !ok && !refused && !last,
    });
    if (refused) throw new UnrecoverableError(error);
    if (!ok) throw new Error(error);
  }
}
