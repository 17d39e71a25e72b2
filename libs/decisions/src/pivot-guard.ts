import { CONFIDENCE, IDLE_THRESHOLD, MAX_PIVOTS, PIVOT_COOLDOWN } from './thresholds';
import type { JudgeInput, JudgeVerdict } from './judge-types';
import { idleRoundsOf } from './idle-rounds';
import { roundsSinceLastPivot } from './signal-history';

/** What the unit (a run's rounds, or an agent loop's steps) tells the guards. */
export interface PivotFacts {
  unit: 'round' | 'step';
  pivotCount: number;
  /** Units since the last pivot; null when there was none. */
  sincePivot: number | null;
  /** The path is still dead (idle or repeating at threshold): the last pivot did not help. */
  dead: boolean;
}

export type PivotGuard = 'none' | 'pivot-cooldown-continue' | 'pivot-cooldown-stop' | 'pivot-cap-stop';

/**
 * Anti-oscillation guards on a proposed pivot, one rule for rounds and steps, in this order:
 * - cooldown: fewer than PIVOT_COOLDOWN units since the previous pivot → `stop` when the path is dead (another
 *   pivot is not allowed and this one did not help), otherwise `continue` (give the last pivot time to work);
 * - cap: MAX_PIVOTS pivots already made → `stop`.
 */
export function pivotGuard(f: PivotFacts): { guard: PivotGuard; signal: 'pivot' | 'continue' | 'stop'; confidence?: number; note?: string } {
  const units = `${f.unit}s`;
  if (f.sincePivot !== null && f.sincePivot < PIVOT_COOLDOWN) {
    const cooldown = `pivot cooldown (${f.sincePivot} < ${PIVOT_COOLDOWN} ${units} since the last pivot)`;
    return f.dead
      ? { guard: 'pivot-cooldown-stop', signal: 'stop', confidence: CONFIDENCE.guardStop, note: `${cooldown} and the path is still dead → stop` }
      : { guard: 'pivot-cooldown-continue', signal: 'continue', confidence: CONFIDENCE.guardContinue, note: `${cooldown} → continue` };
  }
  if (f.pivotCount >= MAX_PIVOTS) return { guard: 'pivot-cap-stop', signal: 'stop', note: `pivot cap reached (${f.pivotCount} >= ${MAX_PIVOTS} pivots) → stop` };
  return { guard: 'none', signal: 'pivot' };
}

/** The guards on a round verdict (any level's pivot). The outcome is written to `signals.guard` and appended to the reason. */
export function applyPivotGuards(verdict: JudgeVerdict, input: JudgeInput): JudgeVerdict {
  if (verdict.signal !== 'pivot') return verdict;
  const pivotCount = input.history.pivotCount;
  const sincePivot = roundsSinceLastPivot(input.history, input.round);
  const idle = idleRoundsOf(input);
  const g = pivotGuard({ unit: 'round', pivotCount, sincePivot, dead: idle >= IDLE_THRESHOLD });
  if (g.guard === 'none') return { ...verdict, signals: { ...verdict.signals, guard: 'none', pivotCount, roundsSinceLastPivot: sincePivot } };
  return {
    ...verdict,
    signal: g.signal,
    confidence: g.confidence ?? Math.max(verdict.confidence, CONFIDENCE.guardStop),
    reason: `${verdict.reason}; guard: ${g.note}`,
    signals: { ...verdict.signals, proposedSignal: 'pivot', pivotCount, roundsSinceLastPivot: sincePivot, idleRounds: idle, guard: g.guard },
  };
}
