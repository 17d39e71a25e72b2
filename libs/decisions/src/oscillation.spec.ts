import { describe, expect, it } from 'vitest';
import { l0Judge } from './l0-judge';
import { MAX_PIVOTS, PIVOT_COOLDOWN } from './thresholds';
import type { JudgeInput, SignalHistory } from './judge-types';
import { EMPTY_SIGNAL_HISTORY, signalHistory } from './signal-history';

/** Every round has very low novelty below target, so the rules propose a pivot every time. */
function pivotHungry(round: number, history: SignalHistory): JudgeInput {
  return {
    goal: 'g',
    round,
    lastActions: { tasksDispatched: 3, newSources: 1, newFindings: 1, newFacets: 0 },
    state: { subtopics: [], coverage: 0.3, novelty: 0.01, budgetLeft: { tokens: 1, tasks: 1, rounds: 1, wallSeconds: 1 } },
    history,
    stateVersion: round,
    targetCoverage: 0.8,
  };
}

describe('oscillation', () => {
  it('holds repeated pivot proposals by the cooldown and stops at the pivot cap', () => {
    let history = EMPTY_SIGNAL_HISTORY;
    const signals: string[] = [];
    for (let round = 1; round <= 30; round++) {
      const v = l0Judge(pivotHungry(round, history));
      signals.push(v.signal);
      history = signalHistory(history, v, round);
      if (v.signal === 'stop') break;
    }
    const pivotRounds = signals.flatMap((s, i) => (s === 'pivot' ? [i + 1] : []));
    expect(pivotRounds).toEqual(Array.from({ length: MAX_PIVOTS }, (_, i) => 1 + i * PIVOT_COOLDOWN));
    expect(pivotRounds.length).toBe(MAX_PIVOTS);
    for (let i = 1; i < pivotRounds.length; i++) expect(pivotRounds[i]! - pivotRounds[i - 1]!).toBe(PIVOT_COOLDOWN);
    expect(signals.at(-1)).toBe('stop');
    expect(signals.length).toBe(1 + MAX_PIVOTS * PIVOT_COOLDOWN);
    expect(signals.filter((s) => s === 'continue').length).toBe(MAX_PIVOTS * (PIVOT_COOLDOWN - 1));
    expect(history.pivotCount).toBe(MAX_PIVOTS);
  });
});
