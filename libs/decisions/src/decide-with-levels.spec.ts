import { describe, expect, it, vi } from 'vitest';
import { decideWithLevels, judgeBudgetMs, type L2Judge } from './decide-with-levels';
import { CONFIDENCE, DEFAULT_JUDGE_COMPLEX_TIMEOUT_MS, DEFAULT_JUDGE_TIMEOUT_MS } from './thresholds';
import type { JudgeInput } from './judge-types';
import type { ModelVerdict } from './model-verdict';
import type { L1Model } from './l1-model';
import { EMPTY_SIGNAL_HISTORY, signalHistory } from './signal-history';

function input(p: { novelty?: number; coverage?: number; budget?: Partial<JudgeInput['state']['budgetLeft']>; history?: Partial<JudgeInput['history']>; round?: number } = {}): JudgeInput {
  return {
    goal: 'trade policy',
    round: p.round ?? 3,
    lastActions: { tasksDispatched: 3, newSources: 2, newFindings: 2, newFacets: 1 },
    state: {
      subtopics: [
        { id: 'tariffs', title: 'Tariffs', evidenceCount: 5 },
        { id: 'nafta', title: 'NAFTA', evidenceCount: 1 },
        { id: 'china', title: 'China trade', evidenceCount: 0 },
      ],
      coverage: p.coverage ?? 0.34,
      novelty: p.novelty ?? 0.1, // ambiguous: L0 confidence < 0.5
      budgetLeft: { tokens: 0.5, tasks: 0.5, rounds: 0.5, wallSeconds: 0.5, ...p.budget },
    },
    history: { ...EMPTY_SIGNAL_HISTORY, ...p.history },
    stateVersion: 11,
    targetCoverage: 0.8,
  };
}

/** An L1 whose P(stop) is sigmoid(bias) whatever the round: bias 0 is unsure, ±3 is sure (0.953). */
const l1With = (bias: number): L1Model => ({ features: ['round'], mean: [0], scale: [1], weights: [0], bias, min: [-1e9], max: [1e9], trainedOn: 'test' });
const UNSURE_L1 = l1With(0);

const l2Says = (v: Partial<ModelVerdict>): L2Judge => async () => ({ signal: 'stop', confidence: 0.9, reason: 'l2', ...v });

describe('decideWithLevels', () => {
  it('acts on a confident L0 verdict without calling L2', async () => {
    const l2 = vi.fn(l2Says({}));
    const d = await decideWithLevels(input({ novelty: 0.5 }), { l2, judgeEnabled: true });
    expect(d).toMatchObject({ outcome: 'act', route: 'act', flags: [] });
    expect(d.verdict).toMatchObject({ signal: 'continue', level: 'L0' });
    expect(l2).not.toHaveBeenCalled();
  });
  it('calls L2 when L0 is unsure and acts on a confident L2', async () => {
    const l2 = vi.fn(l2Says({ signal: 'stop', confidence: 0.85 }));
    const d = await decideWithLevels(input(), { l2, judgeEnabled: true, timeoutMs: 1000, l1: UNSURE_L1 });
    expect(l2).toHaveBeenCalledOnce();
    expect(d.outcome).toBe('act');
    expect(d.verdict).toMatchObject({ signal: 'stop', level: 'L2', confidence: 0.85 });
    expect(d.trail.map((v) => v.level)).toEqual(['L0', 'L1', 'L2']);
  });
  it('counts an L2 call that times out as continue, flagged, and aborts it', async () => {
    let aborted = false;
    const l2: L2Judge = (_i, { signal }) =>
      new Promise(() => {
        signal.addEventListener('abort', () => (aborted = true));
      });
    const d = await decideWithLevels(input(), { l2, judgeEnabled: true, timeoutMs: 20, l1: UNSURE_L1 });
    expect(d.outcome).toBe('act');
    expect(d.verdict).toMatchObject({ signal: 'continue', level: 'L2', confidence: CONFIDENCE.modelFallback });
    expect(d.flags).toContain('l2-timeout');
    expect(d.verdict.reason).toContain('timed out');
    expect(aborted).toBe(true);
  });
  it('gives the model the longer budget only on a complex decision (the rules propose to stop or pivot)', () => {
    const l0 = (signal: 'continue' | 'stop' | 'pivot') => ({ signal, confidence: 0.4, reason: 'r', level: 'L0' as const, signals: {} });
    const budget = { timeoutMs: 2000, complexTimeoutMs: 15_000 };
    expect(judgeBudgetMs(l0('continue'), budget)).toBe(2000);
    expect(judgeBudgetMs(l0('stop'), budget)).toBe(15_000);
    expect(judgeBudgetMs(l0('pivot'), budget)).toBe(15_000);
    expect(judgeBudgetMs(l0('continue'), {})).toBe(DEFAULT_JUDGE_TIMEOUT_MS);
    expect(judgeBudgetMs(l0('stop'), {})).toBe(DEFAULT_JUDGE_COMPLEX_TIMEOUT_MS);
    // The complex budget never undercuts the normal one.
    expect(judgeBudgetMs(l0('stop'), { timeoutMs: 20_000, complexTimeoutMs: 15_000 })).toBe(20_000);
  });
  it('counts a failing L2 as continue, flagged', async () => {
    const d = await decideWithLevels(input(), { l2: async () => Promise.reject(new Error('529 overloaded')), judgeEnabled: true, l1: UNSURE_L1 });
    expect(d.verdict.signal).toBe('continue');
    expect(d.flags).toContain('l2-error');
    expect(d.verdict.reason).toContain('529 overloaded');
  });
  it('rejects an L2 verdict that breaks the contract, and stamps the judged state version on a valid one', async () => {
    const bad = await decideWithLevels(input(), { l2: async () => ({ signal: 'maybe' }) as unknown as ModelVerdict, judgeEnabled: true, l1: UNSURE_L1 });
    expect(bad.flags).toContain('l2-invalid');
    expect(bad.verdict.signal).toBe('continue');
    const ok = await decideWithLevels(input(), { l2: l2Says({}), judgeEnabled: true, l1: UNSURE_L1 });
    expect(ok.verdict).toMatchObject({ level: 'L2', stateVersion: 11 });
  });
  it('does not act on a first unsure L2 verdict: continue, flagged, counted in the history', async () => {
    const d = await decideWithLevels(input(), { l2: l2Says({ signal: 'stop', confidence: 0.2 }), judgeEnabled: true, l1: UNSURE_L1 });
    expect(d.outcome).toBe('act');
    expect(d.route).toBe('escalate');
    expect(d.verdict).toMatchObject({ signal: 'continue', level: 'L2', signals: { proposedSignal: 'stop', l2Unsure: true } });
    expect(d.flags).toContain('l2-unsure');
    expect(signalHistory(EMPTY_SIGNAL_HISTORY, d.verdict, 3)).toMatchObject({ unsureInRow: 1 });
  });
  it('escalates to L3 with a structured summary after the second unsure L2 verdict in a row', async () => {
    const d = await decideWithLevels(input({ history: { unsureInRow: 1 } }), { l2: l2Says({ signal: 'pivot', confidence: 0.3 }), judgeEnabled: true, l1: UNSURE_L1 });
    expect(d.outcome).toBe('needs_review');
    expect(d.verdict.level).toBe('L3');
    expect(d.review).toBeDefined();
    expect(d.review!.cause).toBe('judge-unsure');
    expect(d.review!.covered.map((s) => s.id)).toEqual(['tariffs']);
    expect(d.review!.missing.map((s) => [s.id, s.status])).toEqual([
      ['nafta', 'thin'],
      ['china', 'missing'],
    ]);
    expect(d.review!.budgetUsed).toEqual({ tokens: 0.5, tasks: 0.5, rounds: 0.5, wallSeconds: 0.5 });
    expect(d.review!.question).toMatch(/Continue researching, or stop/);
    expect(d.review!.verdicts.map((v) => v.level)).toEqual(['L0', 'L1', 'L2']);
  });
  it('just stops (no review) when the budget is exhausted at target coverage', async () => {
    const d = await decideWithLevels(input({ budget: { tokens: 0 }, coverage: 0.8 }), { judgeEnabled: true });
    expect(d.outcome).toBe('act');
    expect(d.verdict.signal).toBe('stop');
  });
  it('without an L2, a low-confidence L0 and an unsure L1 act conservatively (continue, flagged)', async () => {
    const d = await decideWithLevels(input(), { judgeEnabled: true, l1: l1With(0.5) });
    expect(d.outcome).toBe('act');
    expect(d.verdict).toMatchObject({ signal: 'continue', level: 'L0' });
    expect(d.flags).toEqual(['l1-unsure', 'no-l2', 'low-confidence-fallback']);
    expect(d.trail.map((v) => [v.level, v.signal])).toEqual([
      ['L0', 'continue'],
      ['L1', 'stop'],
    ]);
  });
});

describe('decideWithLevels through L1', () => {
  it('does not ask L1 when L0 is sure', async () => {
    const d = await decideWithLevels(input({ novelty: 0.5 }), { judgeEnabled: true, l1: l1With(3) });
    expect(d.verdict).toMatchObject({ signal: 'continue', level: 'L0' });
    expect(d.trail.map((v) => v.level)).toEqual(['L0']);
  });
  it('acts on a sure L1 when L0 is unsure, without calling L2', async () => {
    const l2 = vi.fn(l2Says({}));
    const d = await decideWithLevels(input(), { l2, judgeEnabled: true, l1: l1With(3) });
    expect(l2).not.toHaveBeenCalled();
    expect(d.outcome).toBe('act');
    expect(d.verdict).toMatchObject({ signal: 'stop', level: 'L1', confidence: 0.953, stateVersion: 11 });
    expect(d.route).toBe('act');
    expect(d.verdict.signals).toMatchObject({ l0Signal: 'continue', pStop: 0.953, rule: 'ambiguous' });
    expect(d.trail.map((v) => v.level)).toEqual(['L0', 'L1']);
  });
  it('asks L1 in the act-and-flag band too, and keeps L0 there when L1 is unsure', async () => {
    // novelty 0.25: L0 continues "ambiguous" at 0.63, act-and-flag.
    const sure = await decideWithLevels(input({ novelty: 0.25 }), { judgeEnabled: true, l1: l1With(3) });
    expect(sure.verdict).toMatchObject({ signal: 'stop', level: 'L1' });
    const unsure = await decideWithLevels(input({ novelty: 0.25 }), { l2: vi.fn(l2Says({})), judgeEnabled: true, l1: UNSURE_L1 });
    expect(unsure.verdict).toMatchObject({ signal: 'continue', level: 'L0' });
    expect(unsure.flags).toEqual(['l1-unsure', 'act-and-flag']);
  });
  it('acts on L1 from its threshold up, and flags an L1 verdict that is not above 0.8', async () => {
    // sigmoid(-0.85) = 0.2994: continue at 0.701, just over L1_ACT_AT (0.7).
    const d = await decideWithLevels(input(), { judgeEnabled: true, l1: l1With(-0.85) });
    expect(d.verdict).toMatchObject({ signal: 'continue', level: 'L1', confidence: 0.701 });
    expect(d.flags).toEqual(['act-and-flag']);
    // sigmoid(-0.84) = 0.3015: 0.698 is below it, unsure.
    expect((await decideWithLevels(input(), { judgeEnabled: true, l1: l1With(-0.84) })).flags).toContain('l1-unsure');
  });
  it('uses the committed L1 when none is given, and none when null', async () => {
    const d = await decideWithLevels(input(), { judgeEnabled: true });
    expect(d.trail.map((v) => v.level).slice(0, 2)).toEqual(['L0', 'L1']);
    const off = await decideWithLevels(input(), { judgeEnabled: true, l1: null });
    expect(off.trail.map((v) => v.level)).toEqual(['L0']);
    expect(off.flags).toEqual(['no-l2', 'low-confidence-fallback']);
  });
  it('with JUDGE=off, never asks L1', async () => {
    const d = await decideWithLevels(input(), { judgeEnabled: false, l1: l1With(3) });
    expect(d.trail.map((v) => v.level)).toEqual(['L0']);
    expect(d.verdict.signal).toBe('continue');
  });
});

describe('decideWithLevels with JUDGE=off', () => {
  it('never calls L2, even in the ambiguous middle', async () => {
    const l2 = vi.fn(l2Says({}));
    const d = await decideWithLevels(input(), { l2, judgeEnabled: false });
    expect(l2).not.toHaveBeenCalled();
    expect(d.outcome).toBe('act');
    expect(d.verdict.signal).toBe('continue');
    expect(d.flags).toContain('judge-off');
  });
  it('never pivots: a very-low-novelty round continues', async () => {
    const d = await decideWithLevels(input({ novelty: 0.01 }), { judgeEnabled: false });
    expect(d.verdict.signal).toBe('continue');
    expect(d.verdict.signals.proposedSignal).toBe('pivot');
  });
  it('stops on clear saturation and on budget wrap-up', async () => {
    expect((await decideWithLevels(input({ coverage: 0.9, novelty: 0.05 }), { judgeEnabled: false })).verdict.signal).toBe('stop');
    expect((await decideWithLevels(input({ budget: { rounds: 0.1 } }), { judgeEnabled: false })).verdict.signal).toBe('stop');
  });
  it('does not turn a pivot-cap into a stop (no pivots at all when off)', async () => {
    const d = await decideWithLevels(input({ novelty: 0.01, round: 30, history: { pivotCount: 9, lastPivotRound: 10 } }), { judgeEnabled: false });
    expect(d.verdict.signal).toBe('continue');
  });
});
