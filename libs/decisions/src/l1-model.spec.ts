import { describe, expect, it } from 'vitest';
import { l0Judge } from './l0-judge';
import { L1_FEATURES, l1Features, l1Judge, l1StopProbability, type L1Model } from './l1-model';
import { L1_MODEL } from './l1-weights';
import { EMPTY_SIGNAL_HISTORY } from './signal-history';

const model = (p: Partial<L1Model>): L1Model => ({ features: ['round', 'newFindings'], mean: [0, 0], scale: [1, 1], weights: [0, 0], bias: 0, min: [0, 0], max: [10, 10], trainedOn: 'test', ...p });

describe('L1 model', () => {
  it('reads its features from the L0 signals: counts as log(1 + n), missing or non-numeric as 0', () => {
    expect(l1Features({ round: 2, newFindings: 9, rule: 'ambiguous' }, ['round', 'newFindings', 'novelty', 'newSources'])).toEqual([2, Math.log(10), 0, 0]);
    expect(l1Features({ round: 'two', newFindings: -3 }, ['round', 'newFindings'])).toEqual([0, 0]);
  });
  it('is a logistic regression over standardised features', () => {
    const m = model({ mean: [1, 0], scale: [2, 1], weights: [1.5, -0.5], bias: 0.25 });
    const z = 0.25 + 1.5 * ((3 - 1) / 2) - 0.5 * 2;
    expect(l1StopProbability(m, [3, 2])).toBeCloseTo(1 / (1 + Math.exp(-z)), 12);
    expect(l1StopProbability(model({ scale: [0, 0], weights: [1, 1] }), [1, 1])).toBeCloseTo(1 / (1 + Math.exp(-2)), 12);
  });
  it('says stop at P(stop) >= 0.5 with that confidence, else continue with 1 - P, never pivot', () => {
    const l0 = { signal: 'pivot' as const, confidence: 0.4, reason: 'r', level: 'L0' as const, stateVersion: 7, signals: { round: 3, newFindings: 0 } };
    const stop = l1Judge(l0, model({ weights: [2, 0], mean: [2, 0] }));
    expect(stop).toMatchObject({ signal: 'stop', level: 'L1', stateVersion: 7, confidence: 0.881 });
    expect(stop.signals).toMatchObject({ l0Signal: 'pivot', l0Confidence: 0.4, pStop: 0.881, round: 3 });
    expect(l1Judge(l0, model({ bias: -1 }))).toMatchObject({ signal: 'continue', confidence: 0.731 });
    expect(l1Judge(l0, model({})).signal).toBe('stop');
  });
  it('abstains (confidence 0) on a feature outside its training range, past a 10% slack', () => {
    const l0 = (round: number) => ({ signal: 'continue' as const, confidence: 0.6, reason: 'r', level: 'L0' as const, stateVersion: 1, signals: { round, newFindings: 3 } });
    const m = model({ bias: 3 });
    expect(l1Judge(l0(11), m).confidence).toBe(0.953);
    const out = l1Judge(l0(11.5), m);
    expect(out).toMatchObject({ signal: 'stop', confidence: 0, signals: { outOfRange: 'round' } });
    expect(out.reason).toMatch(/abstains: round outside/);
    expect(l1Judge(l0(-1.1), m).confidence).toBe(0);
  });
  it('the committed weights fit the feature list and give a probability on a real L0 verdict', () => {
    expect(L1_MODEL.features).toEqual(L1_FEATURES);
    for (const a of [L1_MODEL.mean, L1_MODEL.scale, L1_MODEL.weights, L1_MODEL.min, L1_MODEL.max]) expect(a).toHaveLength(L1_FEATURES.length);
    const l0 = l0Judge({
      goal: 'g',
      round: 1,
      lastActions: { tasksDispatched: 5, newSources: 12, newFindings: 20, newFacets: 5 },
      state: { subtopics: [], coverage: 1, novelty: 0.6, budgetLeft: { tokens: 1, tasks: 0.8, rounds: 0.8, wallSeconds: 1 } },
      history: EMPTY_SIGNAL_HISTORY,
      stateVersion: 1,
      targetCoverage: 0.8,
    });
    const p = l1StopProbability(L1_MODEL, l1Features(l0.signals));
    expect(p).toBeGreaterThanOrEqual(0);
    expect(p).toBeLessThanOrEqual(1);
  });
});
