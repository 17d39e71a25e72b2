/**
 * Every threshold the L0 judge and its guards use, named, with the boundary semantics spelled out.
 * Tests exercise each one just below, at and above.
 */
import { BUDGET_EXHAUSTED_FRACTION, WRAP_UP_FRACTION } from '../budget/budget-thresholds';

export { BUDGET_EXHAUSTED_FRACTION, WRAP_UP_FRACTION };

/** Novelty strictly below this is "low": with coverage at target, the research is saturated → stop. */
export const NOVELTY_LOW = 0.15;
/** Novelty strictly below this is "very low": with coverage below target, the current path is dead → pivot. */
export const NOVELTY_VERY_LOW = 0.05;
/** Novelty at or above this, with at least one new finding, is a healthy yield → continue. */
export const NOVELTY_HEALTHY = 0.3;

/** Consecutive rounds with no new finding and no new source after which yield is "dead" (seed 002: idle threshold 3). */
export const IDLE_ROUNDS_THRESHOLD = 3;

/**
 * After a pivot, this many rounds must pass before the next (allowed when roundsSincePivot >= 2): the
 * re-planned round gets one round to show its yield.
 */
export const PIVOT_COOLDOWN_ROUNDS = 2;
/**
 * After this many pivots, a further pivot becomes stop: the re-plan dead-ended too. Sized to the round cap
 * so it can fire: a first pivot after round 2 and one cooldown fit in depth's 5 rounds
 * (2 + MAX_PIVOTS * PIVOT_COOLDOWN_ROUNDS <= 5 - 1, checked by a test); 5 pivots with a 3-round cooldown never could.
 */
export const MAX_PIVOTS = 1;

/** Confidence routing (seed 000 §6.3): above ACT_ABOVE act; from ESCALATE_BELOW to ACT_ABOVE act and flag; below escalate. */
export const ACT_ABOVE = 0.8;
export const ESCALATE_BELOW = 0.5;
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
  /** Very low novelty below target and idle for IDLE_ROUNDS_THRESHOLD rounds: a clear dead end. */
  pivotDeadEnd: 0.85,
  /** Very low novelty below target, but something still trickles in. */
  pivotLowNovelty: 0.7,
  healthy: 0.9,
  /** The ambiguous middle ground is interpolated between these two over [NOVELTY_VERY_LOW, NOVELTY_HEALTHY). */
  middleMin: 0.35,
  middleMax: 0.7,
  /** A guard turned a pivot into stop (pivot cap, or cooldown with dead yield). */
  guardStop: 0.9,
  /** A guard turned a pivot into continue (cooldown). */
  guardContinue: 0.7,
  /** An L2 call that timed out or failed counts as continue with this confidence (act and flag). */
  l2Fallback: 0.5,
} as const;

/** Default L2 timeout when the caller does not give one (seed 000: 3 s judge timeout). */
export const DEFAULT_L2_TIMEOUT_MS = 3000;

/** A round where failed/dispatched is at or above this share is an infrastructure problem, not a content signal. */
export const FAILED_SHARE_HIGH = 0.5;
/** Confidence of the continue given when too many tasks failed: low on purpose, so it escalates. */
export const CONFIDENCE_TASKS_FAILING = 0.4;
