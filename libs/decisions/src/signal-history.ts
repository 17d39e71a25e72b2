import type { JudgeVerdict, SignalHistory } from './judge-types';

export const EMPTY_SIGNAL_HISTORY: SignalHistory = Object.freeze({ lastNonContinue: null, lastPivotRound: null, pivotCount: 0 }) as SignalHistory;

/**
 * Updates the compact history with the verdict that was acted on after `round` (final: after guards and levels).
 * Idempotent: applying the same verdict for the same round twice (at-least-once delivery) counts it once.
 * An unsure L2 verdict that was not acted on (`signals.l2Unsure`) extends the count of unsure rounds in a row;
 * any other verdict ends it.
 */
export function signalHistory(prev: SignalHistory, verdict: Pick<JudgeVerdict, 'signal'> & { signals?: JudgeVerdict['signals'] }, round: number): SignalHistory {
  const unsure = verdict.signals?.l2Unsure === true ? (prev.unsureInRow ?? 0) + 1 : 0;
  const base: SignalHistory = unsure === (prev.unsureInRow ?? 0) ? prev : { ...withoutUnsure(prev), ...(unsure ? { unsureInRow: unsure } : {}) };
  if (verdict.signal === 'continue') return base;
  if (prev.lastNonContinue && prev.lastNonContinue.round === round && prev.lastNonContinue.signal === verdict.signal) return base;
  const isNewPivot = verdict.signal === 'pivot' && prev.lastPivotRound !== round;
  return {
    lastNonContinue: { signal: verdict.signal, round },
    lastPivotRound: verdict.signal === 'pivot' ? round : prev.lastPivotRound,
    pivotCount: prev.pivotCount + (isNewPivot ? 1 : 0),
  };
}

const withoutUnsure = ({ unsureInRow: _, ...h }: SignalHistory): SignalHistory => h;

/** Rounds since the last pivot, seen from `round`; null when there was none. */
export function roundsSinceLastPivot(history: SignalHistory, round: number): number | null {
  return history.lastPivotRound === null ? null : round - history.lastPivotRound;
}

/** Rounds since the last non-continue signal, seen from `round`; null when there was none. */
export function roundsSinceLastNonContinue(history: SignalHistory, round: number): number | null {
  return history.lastNonContinue === null ? null : round - history.lastNonContinue.round;
}
