import { CONFIDENCE, IDLE_ROUNDS_THRESHOLD, MAX_PIVOTS, PIVOT_COOLDOWN_ROUNDS } from './judge-thresholds';
import type { JudgeInput, JudgeVerdict } from './judge-types';
import { idleRoundsOf } from './idle-rounds';
import { roundsSinceLastPivot } from './signal-history';

/**
 * Anti-oscillation guards (seed 000 §5.3), applied to any level's pivot, in this order:
 * - cooldown: a pivot fewer than PIVOT_COOLDOWN_ROUNDS rounds after the previous one becomes
 *   `stop` when yield is dead (IDLE_ROUNDS_THRESHOLD idle rounds in a row: the last pivot did not help
 *   and another is not allowed), otherwise `continue` (give the last pivot time to work);
 * - pivot cap: when MAX_PIVOTS pivots were already made, a further pivot (outside the cooldown) becomes `stop`.
 * So the 5th pivot still gets its cooldown rounds before the run is stopped.
 * The outcome is written to `signals.guard` and appended to the reason.
 */
export function applyPivotGuards(verdict: JudgeVerdict, input: JudgeInput): JudgeVerdict {
  if (verdict.signal !== 'pivot') return verdict;
  const pivotCount = input.history.pivotCount;
  const sincePivot = roundsSinceLastPivot(input.history, input.round);
  const idle = idleRoundsOf(input);
  const base = { ...verdict.signals, proposedSignal: 'pivot', pivotCount, roundsSinceLastPivot: sincePivot, idleRounds: idle };

  if (sincePivot !== null && sincePivot < PIVOT_COOLDOWN_ROUNDS) {
    const dead = idle >= IDLE_ROUNDS_THRESHOLD;
    return {
      ...verdict,
      signal: dead ? 'stop' : 'continue',
      confidence: dead ? CONFIDENCE.guardStop : CONFIDENCE.guardContinue,
      reason: dead
        ? `${verdict.reason}; guard: pivot cooldown (${sincePivot} < ${PIVOT_COOLDOWN_ROUNDS} rounds since last pivot) and yield dead (${idle} idle rounds) → stop`
        : `${verdict.reason}; guard: pivot cooldown (${sincePivot} < ${PIVOT_COOLDOWN_ROUNDS} rounds since last pivot) → continue`,
      signals: { ...base, guard: dead ? 'cooldown-stop' : 'cooldown-continue' },
    };
  }
  if (pivotCount >= MAX_PIVOTS) {
    return {
      ...verdict,
      signal: 'stop',
      confidence: Math.max(verdict.confidence, CONFIDENCE.guardStop),
      reason: `${verdict.reason}; guard: pivot cap reached (${pivotCount} >= ${MAX_PIVOTS} pivots) → stop`,
      signals: { ...base, guard: 'pivot-cap-stop' },
    };
  }
  return { ...verdict, signals: { ...verdict.signals, guard: 'none', pivotCount, roundsSinceLastPivot: sincePivot } };
}
