/**
 * Every threshold a judge uses, rounds and steps alike, named once, with the boundary semantics spelled out.
 * A run and an agent loop stop, pivot, cool down and escalate by the same numbers; only the unit differs
 * (rounds for the round judge, steps for the loop and MCP judges). Tests exercise each one below, at and above.
 */

/** Below this fraction left in any budget dimension the run (or a task's loop) wraps up (what is left then is worth more synthesized than explored). Strictly below: 0.15 itself does not wrap up. */
export const WRAP_UP_FRACTION = 0.15;
/** A budget dimension with a remaining fraction `<=` this is exhausted. */
export const BUDGET_EXHAUSTED_FRACTION = 0;

/** Novelty strictly below this is "low": with coverage at target, the research is saturated → stop. */
export const NOVELTY_LOW = 0.15;
/** Novelty strictly below this is "very low": with coverage below target, the current path is dead → pivot. */
export const NOVELTY_VERY_LOW = 0.05;
/** Novelty at or above this, with at least one new finding, is a healthy yield → continue. */
export const NOVELTY_HEALTHY = 0.3;

/** Consecutive units (rounds, steps) with nothing new after which the path is "dead": three in a row is past chance. */
export const IDLE_THRESHOLD = 3;
/** The last action seen this many times among the recent actions (itself included) is a loop → pivot (steps only). */
export const REPEATED_ACTION_THRESHOLD = 3;
/** At most this many recent actions are looked at (the newest ones; steps only). */
export const RECENT_ACTIONS_WINDOW = 10;

/**
 * After a pivot, this many units must pass before the next (allowed when sincePivot >= 2): the re-planned
 * round (or the changed approach) gets one unit to show its yield.
 */
export const PIVOT_COOLDOWN = 2;
/**
 * After this many pivots, a further pivot becomes stop: the re-plan dead-ended too. Sized to the round cap
 * so it can fire: a first pivot after round 2 and one cooldown fit in depth's 5 rounds
 * (2 + MAX_PIVOTS * PIVOT_COOLDOWN <= 5 - 1, checked by a test); 5 pivots with a 3-round cooldown never could.
 */
export const MAX_PIVOTS = 1;

/** The confidence ladder, on every surface: above ACT_ABOVE act; from ESCALATE_BELOW to ACT_ABOVE act and flag; below, do not act, escalate. */
export const ACT_ABOVE = 0.8;
export const ESCALATE_BELOW = 0.5;
/**
 * A person (L3) is asked after this many unsure L2 verdicts in a row. One unsure
 * answer is not acted on and counts as continue; a second in a row means more rounds would only repeat the doubt.
 */
export const UNSURE_L2_IN_ROW_FOR_REVIEW = 2;
/** L1 (the local model) is asked whenever L0 is not above ACT_ABOVE; its verdict is acted on at or above this confidence. */
export const L1_ACT_AT = 0.7;

/** A subtopic with at least this many findings counts as covered in the L3 summary (when not graded upstream). */
export const COVERED_MIN_EVIDENCE = 2;

/** Confidences the rules give. */
export const CONFIDENCE = {
  budgetExhausted: 0.99,
  wrapUp: 0.92,
  saturated: 0.9,
  /** Coverage met but the last round still brought new material: continuing is reasonable, not certain. */
  targetMetStillLearning: 0.65,
  /** Very low novelty below target and idle for IDLE_THRESHOLD rounds: a clear dead end. */
  pivotDeadEnd: 0.85,
  /** Very low novelty below target, but something still trickles in. */
  pivotLowNovelty: 0.7,
  healthy: 0.9,
  /** The ambiguous middle ground is interpolated between these two over [NOVELTY_VERY_LOW, NOVELTY_HEALTHY). */
  middleMin: 0.35,
  middleMax: 0.7,
  /** A step repeated the same action IDLE_THRESHOLD times, or brought nothing new as often: a dead path. */
  repeatedAction: 0.85,
  idleSteps: 0.85,
  /** The newest step brought new information. */
  progress: 0.9,
  /** Nothing tells a step's progress from stalling (no results given, or idle steps below the threshold): low on purpose, so it escalates. */
  unsure: 0.4,
  /** A guard turned a pivot into stop (pivot cap, or cooldown with dead yield). */
  guardStop: 0.9,
  /** A guard turned a pivot into continue (cooldown). */
  guardContinue: 0.7,
  /** A model call that timed out, failed or broke the contract counts as continue with this confidence (act and flag). */
  modelFallback: 0.5,
} as const;

/** Deadline of a judge model's call when the caller gives none (a slow judge must not hold a run; JUDGE_TIMEOUT_MS overrides). */
export const DEFAULT_JUDGE_TIMEOUT_MS = 3000;
/**
 * Deadline of a judge model's call on a complex decision: the rules propose to change course (stop or pivot), so the
 * model's answer decides more than one more round. The seed's latency budget: a few seconds normally, 15 s for a
 * complex decision (JUDGE_COMPLEX_TIMEOUT_MS overrides).
 */
export const DEFAULT_JUDGE_COMPLEX_TIMEOUT_MS = 15_000;

/** A round where failed/dispatched is at or above this share is an infrastructure problem, not a content signal. */
export const FAILED_SHARE_HIGH = 0.5;
/** Confidence of the continue given when too many tasks failed: low on purpose, so it escalates. */
export const CONFIDENCE_TASKS_FAILING = 0.4;

/** The one budget rule, on the tightest fraction left: spent, wrap up, or room to explore. */
export function budgetCall(tightest: number): 'exhausted' | 'wrap-up' | 'ok' {
  if (tightest <= BUDGET_EXHAUSTED_FRACTION) return 'exhausted';
  return tightest < WRAP_UP_FRACTION ? 'wrap-up' : 'ok';
}
