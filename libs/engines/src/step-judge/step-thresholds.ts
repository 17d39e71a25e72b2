/**
 * Every threshold the step judge uses, named once. The pivot guards and confidence routing take the
 * round judge's values (apps/coordinator/src/judge/judge-thresholds.ts), so an agent loop and a run
 * oscillate, cool down and escalate alike; counted here in steps instead of rounds.
 */

/** The last action seen this many times in `recentActions` (itself included) is a loop → pivot. */
export const REPEATED_ACTION_THRESHOLD = 3;
/** This many trailing steps with no new information in a row is a dead path → pivot (the round judge's idle threshold). */
export const IDLE_STEPS_THRESHOLD = 3;

/** A task with less than this share of its budget left wraps its loop up (the run's wrap-up share), keeping the rest for its findings. */
export const TASK_BUDGET_WRAP_UP = 0.15;

/** After a pivot, this many steps must pass before the next one: allowed when stepsSincePivot >= 3. */
export const STEP_PIVOT_COOLDOWN = 3;
/** After this many pivots, a further pivot becomes stop. */
export const STEP_MAX_PIVOTS = 5;

/** Below this confidence the rules are unsure and the judge model (L2), when given, is asked. */
export const STEP_ESCALATE_BELOW = 0.5;

/** Deadline of the L2 call when the caller gives none (JUDGE_TIMEOUT_MS overrides). */
export const STEP_DEFAULT_TIMEOUT_MS = 3000;

/** At most this many recent actions are looked at (the newest ones). */
export const RECENT_ACTIONS_WINDOW = 10;

/** Confidences the step rules give. */
export const STEP_CONFIDENCE = {
  budgetExhausted: 0.99,
  repeatedAction: 0.85,
  idle: 0.85,
  progress: 0.9,
  /** Nothing tells progress from stalling (no results given, or some idle steps below the threshold). */
  unsure: 0.4,
  /** A guard turned a pivot into stop (pivot cap, or cooldown with a dead path). */
  guardStop: 0.9,
  /** A guard turned a pivot into continue (cooldown). */
  guardContinue: 0.7,
  /** An L2 call that timed out, failed or broke the contract counts as continue with this confidence. */
  l2Fallback: 0.5,
} as const;
