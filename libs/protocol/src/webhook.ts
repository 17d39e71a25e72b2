import { z } from 'zod';
import { RunIdSchema } from './names';

export const WEBHOOK_URL_MAX_CHARS = 2048;

/**
 * Where a run reports its end: an absolute http(s) URL without credentials. Whether its host may be reached
 * (https only, public addresses only, unless the operator allow-listed it) is the coordinator's check.
 */
export const WebhookRequestSchema = z.strictObject({
  url: z
    // abort: a string that is no URL stops here, so the checks below may parse it.
    .url({ protocol: /^https?$/, message: 'webhook.url must be an absolute http(s) URL', abort: true })
    .max(WEBHOOK_URL_MAX_CHARS, `webhook.url must have at most ${WEBHOOK_URL_MAX_CHARS} characters`)
    .refine((u) => {
      const url = new URL(u);
      return !url.username && !url.password;
    }, 'webhook.url must not carry a user name or password'),
});
export type WebhookRequest = z.infer<typeof WebhookRequestSchema>;

/** What a webhook tells: the run is done, failed, waits for a person, or waits for the model provider. */
export const WebhookEventTypeSchema = z.enum(['run.done', 'run.failed', 'run.needs_review', 'run.waiting', 'watch.changed']);
export type WebhookEventType = z.infer<typeof WebhookEventTypeSchema>;

/** The body of a webhook POST, shaped as Standard Webhooks suggests: `type`, `timestamp`, `data`. */
export const WebhookPayloadSchema = z.strictObject({
  type: WebhookEventTypeSchema,
  timestamp: z.iso.datetime(),
  data: z.strictObject({
    id: RunIdSchema,
    status: z.enum(['done', 'failed', 'needs_review', 'waiting']),
    /** For `run.waiting`: why, and since when. */
    waiting: z.strictObject({ reason: z.string(), since: z.iso.datetime() }).optional(),
    topic: z.string(),
    parentId: RunIdSchema.optional(),
    error: z.string().optional(),
    links: z.strictObject({ self: z.string(), report: z.string(), events: z.string() }),
    /** For `watch.changed`: the watch whose run this is, and what changed since its last run. */
    watch: z
      .strictObject({
        id: z.string(),
        question: z.string(),
        changes: z.strictObject({
          newSources: z.array(z.strictObject({ id: z.string(), title: z.string() })),
          unsupported: z.array(z.strictObject({ sourceId: z.string(), quote: z.string() })),
          answerChanged: z.boolean(),
          summary: z.string(),
        }),
      })
      .optional(),
  }),
});
export type WebhookPayload = z.infer<typeof WebhookPayloadSchema>;

/** A delivery job: one event of one run. Its id (`webhook-id`) stays the same across retries, so receivers can drop repeats. */
export const WebhookJobSchema = z.strictObject({
  runId: RunIdSchema,
  owner: z.string(),
  url: z.string(),
  webhookId: z.string(),
  payload: WebhookPayloadSchema,
});
export type WebhookJob = z.infer<typeof WebhookJobSchema>;

/** One attempt to deliver, as the delivery log keeps it. */
export const WebhookDeliverySchema = z.strictObject({
  webhookId: z.string(),
  type: WebhookEventTypeSchema,
  attempt: z.number().int().positive(),
  at: z.iso.datetime(),
  ok: z.boolean(),
  /** The receiver's HTTP status, when it answered. */
  status: z.number().int().optional(),
  error: z.string().optional(),
  ms: z.number().nonnegative(),
  /** Another attempt follows (with backoff); false on success and on the last one. */
  retrying: z.boolean(),
});
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;
