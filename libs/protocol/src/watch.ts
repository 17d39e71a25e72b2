import { z } from 'zod';
import { BudgetRequestSchema } from './budget';
import { CorpusNameSchema, RunIdSchema } from './names';
import { TopicSchema } from './research-request';
import { WebhookRequestSchema } from './webhook';

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** "15m", "1h", "1d", or seconds: how often a watch asks its question again. */
export const WatchEverySchema = z.union(
  [
    z.number().int().positive(),
    z
      .string()
      .regex(/^\d{1,6}\s*[smhd]$/, 'every must be seconds or a duration such as "15m", "1h", "1d"')
      .transform((s) => Number(s.slice(0, -1).trim()) * UNIT_SECONDS[s.at(-1) as keyof typeof UNIT_SECONDS]),
  ],
  { message: 'every must be seconds or a duration such as "15m", "1h", "1d"' },
);

/** `POST /v1/watches`: a question asked again on a schedule, each answer compared with the last. */
export const WatchRequestSchema = z.strictObject({
  question: TopicSchema,
  every: WatchEverySchema,
  corpus: CorpusNameSchema.optional(),
  /** Gets `watch.changed` when a run's answer differs from the last one's, and only then. */
  webhook: WebhookRequestSchema.optional(),
  budget: BudgetRequestSchema.optional(),
});
export type WatchRequest = z.infer<typeof WatchRequestSchema>;

/** What one run of a watch found changed since the watch's previous run. */
export const WatchChangesSchema = z.strictObject({
  /** Sources the answer cites now that the last answer did not. */
  newSources: z.array(z.strictObject({ id: z.string(), title: z.string() })),
  /** Findings the last answer cited that no longer hold: the source is gone, or no longer says it. */
  unsupported: z.array(z.strictObject({ sourceId: z.string(), quote: z.string() })),
  /** The answer's summary differs from the last one. */
  answerChanged: z.boolean(),
  /** The "what changed" section: a few lines, empty when nothing changed. */
  summary: z.string(),
});
export type WatchChanges = z.infer<typeof WatchChangesSchema>;

export const WatchRunSchema = z.strictObject({
  runId: RunIdSchema,
  at: z.iso.datetime(),
  status: z.string(),
  /** Absent for the first run (nothing to compare with) and for a run that did not end done. */
  changes: WatchChangesSchema.optional(),
  changed: z.boolean(),
});
export type WatchRun = z.infer<typeof WatchRunSchema>;

/** A watch as the coordinator keeps it in Redis. */
export const WatchSchema = z.strictObject({
  id: z.string(),
  owner: z.string(),
  /** Whether the owner was an admin key when it made the watch: its runs are admitted as such. */
  ownerAdmin: z.boolean(),
  question: z.string(),
  everySeconds: z.number().int().positive(),
  corpus: CorpusNameSchema.optional(),
  webhook: WebhookRequestSchema.optional(),
  budget: BudgetRequestSchema.optional(),
  status: z.enum(['active', 'paused']),
  createdAt: z.iso.datetime(),
  /** Newest last; the last 50 are kept. */
  runs: z.array(WatchRunSchema),
});
export type Watch = z.infer<typeof WatchSchema>;

/** A watch scheduler's job: one run of the watch. */
export const WatchTickSchema = z.strictObject({
  watchId: z.string(),
  /** The run this job started, written back to the job before it waits: a retried job waits on it, never starts another. */
  runId: RunIdSchema.optional(),
});
export type WatchTick = z.infer<typeof WatchTickSchema>;
