import { describe, expect, it } from 'vitest';
import { EMPTY_SIGNAL_HISTORY, roundsSinceLastNonContinue, roundsSinceLastPivot, signalHistory } from './signal-history';

describe('signalHistory', () => {
  it('keeps only the last non-continue signal and counts pivots', () => {
    let h = signalHistory(EMPTY_SIGNAL_HISTORY, { signal: 'continue' }, 1);
    expect(h).toBe(EMPTY_SIGNAL_HISTORY);
    h = signalHistory(h, { signal: 'pivot' }, 2);
    h = signalHistory(h, { signal: 'continue' }, 3);
    expect(h).toEqual({ lastNonContinue: { signal: 'pivot', round: 2 }, lastPivotRound: 2, pivotCount: 1 });
    expect(roundsSinceLastPivot(h, 5)).toBe(3);
    h = signalHistory(h, { signal: 'stop' }, 6);
    expect(h).toEqual({ lastNonContinue: { signal: 'stop', round: 6 }, lastPivotRound: 2, pivotCount: 1 });
    expect(roundsSinceLastNonContinue(h, 7)).toBe(1);
  });
  it('is idempotent for a redelivered verdict of the same round', () => {
    const once = signalHistory(EMPTY_SIGNAL_HISTORY, { signal: 'pivot' }, 4);
    expect(signalHistory(once, { signal: 'pivot' }, 4)).toEqual(once);
    expect(signalHistory(once, { signal: 'pivot' }, 7).pivotCount).toBe(2);
  });
  it('reports null when nothing happened yet', () => {
    expect(roundsSinceLastPivot(EMPTY_SIGNAL_HISTORY, 3)).toBeNull();
    expect(roundsSinceLastNonContinue(EMPTY_SIGNAL_HISTORY, 3)).toBeNull();
  });
});
