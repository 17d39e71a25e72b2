import { z } from 'zod';
import { BudgetSchema } from './budget';
import { BudgetAccountSchema, ReviewSummarySchema, SignalHistorySchema } from './judge';
import { CorpusNameSchema, ResolvedEngineSchema } from './names';
import { PlanSchema } from './plan';
import { TokenUsageSchema } from './usage';
import { WebhookRequestSchema } from './webhook';

export const RunStatusSchema = z.enum(['queued', 'planning', 'researching', 'synthesizing', 'needs_review', 'done', 'failed', 'cancelled']);
export type RunStatus = z.infer<typeof RunStatusSchema>;
export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ['done', 'failed', 'cancelled'];

export const RoundSchema = z.strictObject({
  n: z.number().int().positive(),
  status: z.enum(['dispatched', 'completed']),
  taskIds: z.array(z.string()),
  subtopicIds: z.array(z.string()),
  completed: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  /** Findings the round's tasks returned (before deduplication). */
  returned: z.number().int().nonnegative(),
  newFindings: z.number().int().nonnegative(),
  newSources: z.number().int().nonnegative(),
  novelty: z.number().min(0).max(1),
  coverage: z.number().min(0).max(1),
  startedAt: z.iso.datetime(),
  endedAt: z.iso.datetime().optional(),
});
export type Round = z.infer<typeof RoundSchema>;

export const RunErrorSchema = z.strictObject({ ts: z.iso.datetime(), step: z.string(), message: z.string() });
export type RunError = z.infer<typeof RunErrorSchema>;

export const RunCountersSchema = z.strictObject({
  tasksDispatched: z.number().int().nonnegative(),
  tasksCompleted: z.number().int().nonnegative(),
  tasksFailed: z.number().int().nonnegative(),
  findings: z.number().int().nonnegative(),
  sources: z.number().int().nonnegative(),
});
export type RunCounters = z.infer<typeof RunCountersSchema>;

/** One round of a person's feedback on a proposed plan, and what the revision changed. */
export const PlanRevisionSchema = z.strictObject({
  feedback: z.string().max(2000),
  at: z.iso.datetime(),
  /** One line per change: subtopics added and removed, terms and years left out. */
  changes: z.array(z.string().max(500)).max(60),
});
export type PlanRevision = z.infer<typeof PlanRevisionSchema>;

/** The owner of a run recorded before runs had owners: visible to admins only. */
export const UNOWNED = 'unowned';

/** The run record the coordinator owns in Redis. */
export const RunSchema = z.strictObject({
  id: z.string(),
  /** Who started it: a hash of the API key (`key:<hex>`), or `local` in keyless loopback mode; never the key. */
  owner: z.string().default(UNOWNED),
  topic: z.string(),
  engine: ResolvedEngineSchema,
  corpus: CorpusNameSchema.optional(),
  status: RunStatusSchema,
  /** Bumped on every write; decisions computed on an older version are dropped. */
  stateVersion: z.number().int().nonnegative(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime().optional(),
  /** W3C trace context of the request that started the run: every later step and task joins its trace. */
  traceparent: z.string().max(100).optional(),
  coverageCheck: z.boolean(),
  budget: BudgetSchema,
  plan: PlanSchema.optional(),
  rounds: z.array(RoundSchema),
  /** Evidence (findings) gathered per subtopic id. */
  evidence: z.record(z.string(), z.number().int().nonnegative()),
  counters: RunCountersSchema,
  usage: TokenUsageSchema,
  errors: z.array(RunErrorSchema),
  cancelRequested: z.boolean(),
  /** Judge on (rules then model) or off (rules only, conservative) for this run. */
  judgeEnabled: z.boolean(),
  signalHistory: SignalHistorySchema,
  budgetLedger: BudgetAccountSchema,
  /** Set while the run waits for a person (needs_review). */
  review: ReviewSummarySchema.optional(),
  /** The person's answer to the review, taken once: a second answer to the same review is refused. */
  reviewAnswer: z.strictObject({ action: z.enum(['continue', 'stop']), at: z.iso.datetime() }).optional(),
  /** Where the run's end (and each pause for review) is POSTed. */
  webhook: WebhookRequestSchema.optional(),
  /** `plan`: the run waits for a person to approve (or edit) its plan before dispatching. */
  reviewMode: z.enum(['plan']).optional(),
  /** The plan waiting for approval while the run is in needs_review for plan review; dispatched as approved or edited. */
  proposedPlan: PlanSchema.optional(),
  /** With plan review: seconds an unanswered plan waits before it is approved as it stands. */
  autoApproveAfterSeconds: z.number().int().positive().optional(),
  /** When the plan now proposed is approved unless a person answers first. */
  autoApproveAt: z.iso.datetime().optional(),
  /** The rounds of feedback the proposed plan was revised by, oldest first. */
  planRevisions: z.array(PlanRevisionSchema).max(100).optional(),
  /** A follow-up: the run whose ledger (sources and findings) it started from. */
  parentId: z.string().optional(),
  /** The follow-ups asked on this run, oldest first. */
  followups: z.array(z.string()).optional(),
});
export type Run = z.infer<typeof RunSchema>;

/** A run as `GET /v1/research` lists it: with its usage, and the sources its report cites (null until it exists). */
export const RunSummarySchema = RunSchema.pick({ id: true, topic: true, status: true, engine: true, corpus: true, createdAt: true, updatedAt: true, finishedAt: true, usage: true }).extend({
  citations: z.number().int().nonnegative().nullable(),
});
export type RunSummary = z.infer<typeof RunSummarySchema>;
