import { z } from 'zod';
import { PlanFeedbackSchema, PlanSchema } from './plan';
import { BudgetRequestSchema, BudgetSchema } from './budget';

/** The judge's compact memory: the last non-continue signal and pivots, by absolute round number. */
export const SignalHistorySchema = z.strictObject({
  lastNonContinue: z.strictObject({ signal: z.enum(['stop', 'pivot']), round: z.number().int() }).nullable(),
  lastPivotRound: z.number().int().nullable(),
  pivotCount: z.number().int().nonnegative(),
  /** Rounds in a row whose judge model was unsure (not acted on): the second goes to a person. */
  unsureInRow: z.number().int().positive().optional(),
});
export type SignalHistoryRecord = z.infer<typeof SignalHistorySchema>;

/** The run's budget account (`budgetLedger` on the wire, the API's name for it): reservations before dispatch, settlements per task, idempotent by key. */
export const BudgetAccountSchema = z.strictObject({
  budget: BudgetSchema,
  startedAtMs: z.number(),
  roundsStarted: z.number().int().nonnegative(),
  used: z.strictObject({ tokens: z.number().nonnegative(), tasks: z.number().nonnegative(), costUsd: z.number().nonnegative().default(0) }),
  reservations: z.record(
    z.string(),
    z.strictObject({
      id: z.string(),
      granted: z.strictObject({ tasks: z.number(), tokens: z.number(), costUsd: z.number().default(0) }),
      tasksOpen: z.number(),
      tokensOpen: z.number(),
      costOpen: z.number().default(0),
    }),
  ),
  settled: z.record(z.string(), z.number()),
  charges: z.record(z.string(), z.number()),
});

/** What a person sees when a run pauses as needs_review (L3). */
export const ReviewSummarySchema = z.strictObject({
  cause: z.enum(['budget-exhausted-below-target', 'judge-unsure']),
  goal: z.string(),
  round: z.number().int(),
  coverage: z.number(),
  targetCoverage: z.number(),
  covered: z.array(z.strictObject({ id: z.string(), title: z.string().optional(), evidenceCount: z.number() })),
  missing: z.array(z.strictObject({ id: z.string(), title: z.string().optional(), evidenceCount: z.number(), status: z.enum(['thin', 'missing']) })),
  budgetUsed: z.strictObject({ tokens: z.number(), tasks: z.number(), rounds: z.number(), wallSeconds: z.number() }),
  pivotCount: z.number().int(),
  verdicts: z.array(z.strictObject({ level: z.string(), signal: z.string(), confidence: z.number(), reason: z.string() })),
  question: z.string(),
  options: z.array(z.enum(['continue', 'stop', 'extend-budget'])),
});
export type ReviewSummaryRecord = z.infer<typeof ReviewSummarySchema>;

/** A person's answer to a run in needs_review: `POST /v1/research/:id/decision`. */
export const HumanDecisionSchema = z.union([
  z.strictObject({
    action: z.enum(['continue', 'stop']),
    extraBudget: BudgetRequestSchema.optional(),
    /** For a run paused for plan review: the plan to dispatch instead of the proposed one (checked: scopes apart, within budget). */
    plan: PlanSchema.optional(),
  }),
  /** For a run paused for plan review: the plan comes back revised by the feedback, and the run waits again. */
  z.strictObject({ action: z.literal('revise'), feedback: PlanFeedbackSchema }),
]);
export type HumanDecision = z.infer<typeof HumanDecisionSchema>;

/** The deployment's judge switch: `POST /v1/admin/judge` sets it; every model judgement reads it first. */
export const JudgeSwitchRequestSchema = z.strictObject({ enabled: z.boolean() });
export const JudgeSwitchStateSchema = z.strictObject({
  enabled: z.boolean(),
  changedAt: z.iso.datetime().optional(),
  /** Who flipped it: the admin key's name, never the key. */
  changedBy: z.string().max(200).optional(),
});
export type JudgeSwitchState = z.infer<typeof JudgeSwitchStateSchema>;
