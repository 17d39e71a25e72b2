import { budgetCall } from './thresholds';
import {
  CONFIDENCE,
  CONFIDENCE_TASKS_FAILING,
  FAILED_SHARE_HIGH,
  IDLE_THRESHOLD,
  NOVELTY_HEALTHY,
  NOVELTY_LOW,
  NOVELTY_VERY_LOW,
  WRAP_UP_FRACTION,
} from './thresholds';
import type { BudgetLeft, JudgeInput, JudgeSignal, JudgeSignalValue, JudgeVerdict } from './judge-types';
import { idleRoundsOf } from './idle-rounds';
import { applyPivotGuards } from './pivot-guard';

/** The L0 rule that fired; logged as `signals.rule`. */
export type L0Rule =
  | 'budget-exhausted'
  | 'budget-wrap-up'
  | 'saturated'
  | 'target-met-still-learning'
  | 'tasks-failing'
  | 'dead-end'
  | 'low-novelty'
  | 'healthy-yield'
  | 'ambiguous';

/** Rules whose stop the JUDGE=off mode keeps (budget and clear saturation). */
export const BUDGET_OR_SATURATION_RULES: ReadonlySet<string> = new Set(['budget-exhausted', 'budget-wrap-up', 'saturated']);

const frac = (x: number): number => (Number.isFinite(x) ? (x < 0 ? 0 : x > 1 ? 1 : x) : 0);

/** The tightest budget dimension. */
export function tightestBudget(left: BudgetLeft): { dimension: keyof BudgetLeft; fraction: number } {
  let dimension: keyof BudgetLeft = 'tokens';
  let fraction = frac(left.tokens);
  const t = frac(left.tasks);
  if (t < fraction) (dimension = 'tasks'), (fraction = t);
  const r = frac(left.rounds);
  if (r < fraction) (dimension = 'rounds'), (fraction = r);
  const w = frac(left.wallSeconds);
  if (w < fraction) (dimension = 'wallSeconds'), (fraction = w);
  return { dimension, fraction };
}

/**
 * The L0 rules alone, before the pivot guards. Deterministic, allocation-light, microseconds.
 * Order (first match wins):
 *  1. budget-exhausted: tightest budget fraction <= BUDGET_EXHAUSTED_FRACTION → stop (0.99)
 *  2. budget-wrap-up: tightest budget fraction < WRAP_UP_FRACTION (0.15) → stop (0.92): synthesize, list gaps
 *  3. coverage >= target: novelty < NOVELTY_LOW (0.15) → stop "saturated" (0.9); else continue (0.65)
 *  4. tasks-failing: failed/dispatched >= FAILED_SHARE_HIGH (0.5) → continue (0.4, escalates): not a content signal
 *  5. below target, idle rounds >= IDLE_THRESHOLD (3) → pivot "dead-end" (0.85);
 *     novelty < NOVELTY_VERY_LOW (0.05) → pivot "low-novelty" (0.7)
 *  6. novelty >= NOVELTY_HEALTHY (0.3) with >= 1 new finding → continue "healthy-yield" (0.9)
 *  7. otherwise → continue "ambiguous", confidence interpolated 0.35..0.7 over novelty [0.05, 0.3)
 */
export function l0Rules(input: JudgeInput): JudgeVerdict {
  const { state, lastActions } = input;
  const coverage = frac(state.coverage);
  const target = frac(input.targetCoverage);
  const novelty = frac(state.novelty);
  const budget = tightestBudget(state.budgetLeft);
  const idle = idleRoundsOf(input);
  const failedShare = lastActions.tasksDispatched > 0 ? (lastActions.tasksFailed ?? 0) / lastActions.tasksDispatched : 0;

  let signal: JudgeSignal;
  let confidence: number;
  let rule: L0Rule;
  let reason: string;

  const call = budgetCall(budget.fraction);
  if (call === 'exhausted') {
    signal = 'stop';
    confidence = CONFIDENCE.budgetExhausted;
    rule = 'budget-exhausted';
    reason = `budget exhausted (${budget.dimension})`;
  } else if (call === 'wrap-up') {
    signal = 'stop';
    confidence = CONFIDENCE.wrapUp;
    rule = 'budget-wrap-up';
    reason = `budget below ${WRAP_UP_FRACTION * 100}% (${budget.dimension} ${pct(budget.fraction)} left): wrap up`;
  } else if (coverage >= target) {
    if (novelty < NOVELTY_LOW) {
      signal = 'stop';
      confidence = CONFIDENCE.saturated;
      rule = 'saturated';
      reason = `coverage ${pct(coverage)} >= target ${pct(target)} and novelty ${pct(novelty)} < ${pct(NOVELTY_LOW)}: saturated`;
    } else {
      signal = 'continue';
      confidence = CONFIDENCE.targetMetStillLearning;
      rule = 'target-met-still-learning';
      reason = `coverage ${pct(coverage)} >= target but novelty ${pct(novelty)} still >= ${pct(NOVELTY_LOW)}`;
    }
  } else if (failedShare >= FAILED_SHARE_HIGH) {
    signal = 'continue';
    confidence = CONFIDENCE_TASKS_FAILING;
    rule = 'tasks-failing';
    reason = `${lastActions.tasksFailed}/${lastActions.tasksDispatched} tasks failed: yield says nothing about the topic`;
  } else if (idle >= IDLE_THRESHOLD) {
    signal = 'pivot';
    confidence = CONFIDENCE.pivotDeadEnd;
    rule = 'dead-end';
    reason = `${idle} rounds without a new finding or source, coverage ${pct(coverage)} < target ${pct(target)}`;
  } else if (novelty < NOVELTY_VERY_LOW) {
    signal = 'pivot';
    confidence = CONFIDENCE.pivotLowNovelty;
    rule = 'low-novelty';
    reason = `novelty ${pct(novelty)} < ${pct(NOVELTY_VERY_LOW)} with coverage ${pct(coverage)} < target ${pct(target)}`;
  } else if (novelty >= NOVELTY_HEALTHY && lastActions.newFindings > 0) {
    signal = 'continue';
    confidence = CONFIDENCE.healthy;
    rule = 'healthy-yield';
    reason = `healthy yield: novelty ${pct(novelty)}, ${lastActions.newFindings} new findings`;
  } else {
    signal = 'continue';
    const t = Math.min(1, (novelty - NOVELTY_VERY_LOW) / (NOVELTY_HEALTHY - NOVELTY_VERY_LOW));
    confidence = round3(CONFIDENCE.middleMin + t * (CONFIDENCE.middleMax - CONFIDENCE.middleMin));
    rule = 'ambiguous';
    reason = `ambiguous: novelty ${pct(novelty)}, coverage ${pct(coverage)} < target ${pct(target)}`;
  }

  const signals: Record<string, JudgeSignalValue> = {
    rule,
    round: input.round,
    coverage,
    targetCoverage: target,
    novelty,
    idleRounds: idle,
    newFindings: lastActions.newFindings,
    newSources: lastActions.newSources,
    newFacets: lastActions.newFacets,
    tasksDispatched: lastActions.tasksDispatched,
    failedShare: round3(failedShare),
    budgetTightest: budget.dimension,
    budgetLeft: round3(budget.fraction),
    pivotCount: input.history.pivotCount,
    ...(input.forecast
      ? {
          gapTasks: input.forecast.gapTasks,
          expectedNewPassages: input.forecast.expectedNewPassages,
          uncoveredShare: round3(input.forecast.uncoveredShare),
          missingEvidence: input.forecast.missingEvidence,
          untouchedClusterShare: round3(input.forecast.untouchedClusterShare),
        }
      : {}),
  };
  return { signal, confidence, reason, level: 'L0', stateVersion: input.stateVersion, signals };
}

/** The L0 judge: the rules, then the pivot guards (cooldown and cap). */
export function l0Judge(input: JudgeInput): JudgeVerdict {
  return applyPivotGuards(l0Rules(input), input);
}

function pct(x: number): string {
  return `${Math.round(x * 1000) / 10}%`;
}
function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
