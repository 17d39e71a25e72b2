import { z } from 'zod';
import { BudgetRequestSchema } from './budget';
import { CorpusNameSchema, EngineNameSchema } from './names';
import { WebhookRequestSchema } from './webhook';

export const TOPIC_MAX_CHARS = 2000;

/** C0 and C1 controls and DEL, line breaks and tabs excepted: they steer terminals and no question needs them. */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
/** Half a surrogate pair: not text, and what JSON consumers such as Redis's cjson refuse. */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * A topic is text a person could have typed: well-formed Unicode (a lone surrogate cannot be stored or
 * decoded everywhere a run goes), no control characters, and at least one letter or digit.
 */
export const TopicSchema = z
  .string({ message: 'topic is required and must be a string' })
  .trim()
  .min(3, 'topic must have at least 3 characters')
  .max(TOPIC_MAX_CHARS, `topic must have at most ${TOPIC_MAX_CHARS} characters`)
  .refine((t) => !LONE_SURROGATE.test(t), 'topic must be well-formed Unicode text: it contains a lone surrogate')
  .refine((t) => !CONTROL.test(t), 'topic must not contain control characters')
  .refine((t) => LETTER_OR_DIGIT.test(t), 'topic must contain at least one letter or digit');

/** The longest a plan review may wait before it approves the plan on its own: a week. */
export const AUTO_APPROVE_MAX_SECONDS = 7 * 24 * 3600;

/**
 * `"plan"` or `{ mode: "plan", autoApproveAfterSeconds }`: pause in needs_review with the plan before any task is
 * dispatched; POST …/decision approves, edits or revises it. With `autoApproveAfterSeconds`, a plan nobody answered
 * in that time is approved as it stands (each revised plan waits anew).
 */
export const ReviewRequestSchema = z.union(
  [
    z.literal('plan'),
    z.strictObject({
      mode: z.literal('plan'),
      autoApproveAfterSeconds: z.number().int().min(1).max(AUTO_APPROVE_MAX_SECONDS, `autoApproveAfterSeconds must be at most ${AUTO_APPROVE_MAX_SECONDS}`).optional(),
    }),
  ],
  { message: 'review must be "plan" or {"mode": "plan", "autoApproveAfterSeconds": N}' },
);
export type ReviewRequest = z.infer<typeof ReviewRequestSchema>;

export const ResearchRequestSchema = z.strictObject({
  topic: TopicSchema,
  engine: EngineNameSchema.optional(),
  corpus: CorpusNameSchema.optional(),
  budget: BudgetRequestSchema.optional(),
  /** Ablation switch used by the coverage benchmark; on by default. */
  coverageCheck: z.boolean().optional(),
  /** POSTed, signed, when the run is done, failed or waits for review. */
  webhook: WebhookRequestSchema.optional(),
  review: ReviewRequestSchema.optional(),
});
export type ResearchRequest = z.infer<typeof ResearchRequestSchema>;

/** `POST /v1/research/:id/followups`: a question on a finished run, researched on top of its ledger. */
export const FollowupRequestSchema = z.strictObject({
  question: TopicSchema,
  budget: BudgetRequestSchema.optional(),
  webhook: WebhookRequestSchema.optional(),
  review: ReviewRequestSchema.optional(),
});
export type FollowupRequest = z.infer<typeof FollowupRequestSchema>;
