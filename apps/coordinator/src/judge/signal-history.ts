import type { JudgeVerdict, SignalHistory } from './judge-types';

export const EMPTY_SIGNAL_HISTORY: SignalHistory = Object.freeze({ lastNonContinue: null, lastPivotRound: null, pivotCount: 0 }) as SignalHistory;

/**
 * Updates the compact history with the verdict that was acted on after `round`.
 * Call it only with verdicts that were accepted (acceptVerdict) and are final (after guards and levels).
 * Idempotent: applying the same verdict for the same round twice (at-least-once delivery) counts it once.
 */
export function signalHistory(prev: SignalHistory, verdict: Pick<JudgeVerdict, 'signal'>, round: number): SignalHistory {
  if (verdict.signal === 'continue') return prev;
  if (prev.lastNonContinue && prev.lastNonContinue.round === round && prev.lastNonContinue.signal === verdict.signal) return prev;
  const isNewPivot = verdict.signal === 'pivot' && prev.lastPivotRound !== round;
  return {
    lastNonContinue: { signal: verdict.signal, round },
    lastPivotRound: verdict.signal === 'pivot' ? round : prev.lastPivotRound,
    pivotCount: prev.pivotCount + (isNewPivot ? 1 : 0),
  };
}

/** Rounds since the last pivot, seen from `round`; null when there was none. */
export function roundsSinceLastPivot(history: SignalHistory, round: number): number | null {
  return history.lastPivotRound === null ? null : round - history.lastPivotRound;
}

/** Rounds since the last non-continue signal, seen from `round`; null when there was none. */
export function roundsSinceLastNonContinue(history: SignalHistory, round: number): number | null {
  return history.lastNonContinue === null ? null : round - history.lastNonContinue.round;
}
