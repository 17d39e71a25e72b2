import { describe, expect, it } from 'vitest';
import { l0Judge } from './l0-judge';
import { L1_FEATURES, l1Features, l1Judge, l1StopProbability, type L1Model } from './l1-model';
import { L1_MODEL } from './l1-weights';
import type { RoundForecast } from './judge-types';
import { EMPTY_SIGNAL_HISTORY } from './signal-history';

const model = (p: Partial<L1Model>): L1Model => ({ features: ['round', 'newFindings'], mean: [0, 0], scale: [1, 1], weights: [0, 0], bias: 0, min: [0, 0], max: [10, 10], trainedOn: 'test', ...p });

/** The L0 verdict after a round that brought something: `yielded` is [tasks, new sources, new findings, new facets]. */
const l0After = (round: number, coverage: number, novelty: number, yielded: [number, number, number, number], forecast?: RoundForecast) =>
  l0Judge({
    goal: 'g',
    round,
    lastActions: { tasksDispatched: yielded[0], newSources: yielded[1], newFindings: yielded[2], newFacets: yielded[3] },
    state: { subtopics: [], coverage, novelty, budgetLeft: { tokens: 1, tasks: 0.6, rounds: 0.6, wallSeconds: 1 } },
    history: EMPTY_SIGNAL_HISTORY,
    stateVersion: round,
    targetCoverage: 0.8,
    ...(forecast ? { forecast } : {}),
  });

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
  it('reads a feature past its training range as the nearest end, and says so', () => {
    const l0 = (round: number) => ({ signal: 'continue' as const, confidence: 0.6, reason: 'r', level: 'L0' as const, stateVersion: 1, signals: { round, newFindings: 3 } });
    const m = model({ weights: [1, 0], mean: [5, 0] });
    expect(l1Judge(l0(10), m).confidence).toBe(0.993);
    expect(l1Judge(l0(25), m)).toMatchObject({ signal: 'stop', confidence: 0.993, signals: { clamped: 'round' } });
    expect(l1Judge(l0(-4), m)).toMatchObject({ signal: 'continue', confidence: 0.993, signals: { clamped: 'round' } });
  });
  it('abstains (confidence 0) where a forecast signal it uses is missing, never reading it as 0', () => {
    const m = model({ features: ['round', 'gapTasks'], bias: 3 });
    const l0 = { signal: 'continue' as const, confidence: 0.6, reason: 'r', level: 'L0' as const, stateVersion: 1, signals: { round: 2 } };
    expect(l1Judge(l0, m)).toMatchObject({ confidence: 0, signals: { missing: 'gapTasks' } });
    expect(l1Judge({ ...l0, signals: { round: 2, gapTasks: 0 } }, m).confidence).toBe(0.953);
  });
  it("reads the forecast's evidence gap: missing evidence passages as log(1 + n), the untouched cluster share as is", () => {
    const l0 = l0After(1, 0.6, 0.5, [3, 10, 12, 3], { gapTasks: 2, expectedNewPassages: 5, uncoveredShare: 0.12345, missingEvidence: 7, untouchedClusterShare: 0.33333 });
    expect(l0.signals).toMatchObject({ missingEvidence: 7, untouchedClusterShare: 0.333, uncoveredShare: 0.123 });
    expect(l1Features(l0.signals, ['missingEvidence', 'untouchedClusterShare'])).toEqual([Math.log(8), 0.333]);
    // An engine without a forecast gives neither: a model that uses them abstains.
    const m = model({ features: ['round', 'untouchedClusterShare'], weights: [0, -2] });
    expect(l1Judge({ ...l0, signals: { round: 1 } }, m)).toMatchObject({ confidence: 0, signals: { missing: 'untouchedClusterShare' } });
    // A third of the topic's clusters untouched: continue; none untouched: stop.
    expect(l1Judge(l0, m).signal).toBe('continue');
    expect(l1Judge({ ...l0, signals: { ...l0.signals, untouchedClusterShare: 0 } }, { ...m, bias: 0.5 }).signal).toBe('stop');
  });
  it('the committed weights fit the feature list, and decide on a real L0 verdict that carries a forecast', () => {
    for (const f of L1_MODEL.features) expect(L1_FEATURES).toContain(f);
    for (const a of [L1_MODEL.mean, L1_MODEL.scale, L1_MODEL.weights, L1_MODEL.min, L1_MODEL.max]) expect(a).toHaveLength(L1_MODEL.features.length);
    const l0 = l0After(1, 1, 0.6, [5, 12, 20, 5], { gapTasks: 3, expectedNewPassages: 6, uncoveredShare: 0.1, missingEvidence: 6, untouchedClusterShare: 0.1 });
    const v = l1Judge(l0, L1_MODEL);
    expect(v.signals['missing']).toBeUndefined();
    expect(v.confidence).toBeGreaterThan(0.5);
    expect(v.confidence).toBeCloseTo(Math.max(Number(v.signals['pStop']), 1 - Number(v.signals['pStop'])), 3);
    expect(l1StopProbability(L1_MODEL, l1Features(l0.signals, L1_MODEL.features))).toBeCloseTo(Number(v.signals['pStop']), 3);
  });
  it('the committed model decides across the range its features take, coverage and novelty well away from 1', () => {
    const at = (coverage: number, novelty: number, forecast?: RoundForecast) => l1Judge(l0After(2, coverage, novelty, [4, 6, 8, 2], forecast), L1_MODEL);
    const nothingLeft = { gapTasks: 0, expectedNewPassages: 0, uncoveredShare: 0.01, missingEvidence: 0, untouchedClusterShare: 0 };
    const muchLeft = { gapTasks: 4, expectedNewPassages: 16, uncoveredShare: 0.35, missingEvidence: 16, untouchedClusterShare: 0.4 };
    for (const coverage of [0.25, 0.5, 0.8]) {
      for (const novelty of [0.05, 0.4, 0.9]) {
        const empty = at(coverage, novelty, nothingLeft);
        const full = at(coverage, novelty, muchLeft);
        expect(empty.confidence).toBeGreaterThan(0.5);
        expect(full.confidence).toBeGreaterThan(0.5);
        // More left to find never makes stopping likelier.
        expect(Number(full.signals['pStop'])).toBeLessThanOrEqual(Number(empty.signals['pStop']));
      }
    }
    // Without a forecast (an engine that gives none) it abstains rather than guess.
    expect(at(0.5, 0.4).confidence).toBe(0);
  });
});
