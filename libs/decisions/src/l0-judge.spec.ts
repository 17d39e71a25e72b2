import { describe, expect, it } from 'vitest';
import { l0Judge, l0Rules } from './l0-judge';
import {
  CONFIDENCE,
  IDLE_THRESHOLD,
  MAX_PIVOTS,
  NOVELTY_HEALTHY,
  NOVELTY_LOW,
  NOVELTY_VERY_LOW,
  PIVOT_COOLDOWN,
  WRAP_UP_FRACTION,
} from './thresholds';
import type { JudgeInput } from './judge-types';
import { EMPTY_SIGNAL_HISTORY } from './signal-history';

type Patch = {
  round?: number;
  coverage?: number;
  novelty?: number;
  idleRounds?: number;
  budget?: Partial<JudgeInput['state']['budgetLeft']>;
  yield?: Partial<JudgeInput['lastActions']>;
  history?: Partial<JudgeInput['history']>;
  target?: number;
};

/** A healthy mid-run input; each test moves one signal. */
function input(p: Patch = {}): JudgeInput {
  return {
    goal: 'immigration policy',
    round: p.round ?? 4,
    lastActions: { tasksDispatched: 4, tasksFailed: 0, newSources: 6, newFindings: 8, newFacets: 3, ...p.yield },
    state: {
      subtopics: [{ id: 'a', evidenceCount: 3 }],
      coverage: p.coverage ?? 0.5,
      novelty: p.novelty ?? 0.5,
      budgetLeft: { tokens: 0.6, tasks: 0.6, rounds: 0.6, wallSeconds: 0.6, ...p.budget },
      ...(p.idleRounds !== undefined ? { idleRounds: p.idleRounds } : {}),
    },
    history: { ...EMPTY_SIGNAL_HISTORY, ...p.history },
    stateVersion: 7,
    targetCoverage: p.target ?? 0.8,
  };
}

const rule = (i: JudgeInput) => l0Rules(i).signals.rule;

describe('l0Judge: budget rules', () => {
  it.each(['tokens', 'tasks', 'rounds', 'wallSeconds'] as const)('stops with high confidence when %s is exhausted', (dim) => {
    const v = l0Judge(input({ budget: { [dim]: 0 } }));
    expect(v).toMatchObject({ signal: 'stop', level: 'L0', stateVersion: 7 });
    expect(v.confidence).toBe(CONFIDENCE.budgetExhausted);
    expect(v.signals.rule).toBe('budget-exhausted');
    expect(v.signals.budgetTightest).toBe(dim);
  });
  it('treats a negative (overspent) fraction as exhausted', () => {
    expect(rule(input({ budget: { tokens: -0.2 } }))).toBe('budget-exhausted');
  });
  it('wraps up just above exhaustion and just below 15%, not at 15%', () => {
    expect(rule(input({ budget: { tasks: 0.001 } }))).toBe('budget-wrap-up');
    expect(rule(input({ budget: { tasks: WRAP_UP_FRACTION - 0.0001 } }))).toBe('budget-wrap-up');
    expect(l0Judge(input({ budget: { tasks: WRAP_UP_FRACTION - 0.0001 } })).signal).toBe('stop');
    expect(rule(input({ budget: { tasks: WRAP_UP_FRACTION } }))).toBe('healthy-yield');
    expect(rule(input({ budget: { tasks: WRAP_UP_FRACTION + 0.0001 } }))).toBe('healthy-yield');
  });
  it('budget wins over a healthy yield and over saturation', () => {
    expect(rule(input({ budget: { wallSeconds: 0.1 }, coverage: 1, novelty: 0 }))).toBe('budget-wrap-up');
  });
});

describe('l0Judge: coverage and novelty rules', () => {
  it('stops on saturation: coverage at target and novelty just below NOVELTY_LOW', () => {
    const v = l0Judge(input({ coverage: 0.8, novelty: NOVELTY_LOW - 0.001 }));
    expect(v.signal).toBe('stop');
    expect(v.signals.rule).toBe('saturated');
    expect(v.confidence).toBe(CONFIDENCE.saturated);
  });
  it('continues with moderate confidence when coverage is met but novelty is at/above NOVELTY_LOW', () => {
    for (const novelty of [NOVELTY_LOW, NOVELTY_LOW + 0.001]) {
      const v = l0Judge(input({ coverage: 0.9, novelty }));
      expect(v.signal).toBe('continue');
      expect(v.signals.rule).toBe('target-met-still-learning');
      expect(v.confidence).toBe(CONFIDENCE.targetMetStillLearning);
    }
  });
  it('does not call saturation just below the target coverage', () => {
    const v = l0Judge(input({ coverage: 0.799, novelty: 0.1 }));
    expect(v.signal).toBe('continue');
    expect(v.signals.rule).toBe('ambiguous');
  });
  it('pivots when novelty is just below NOVELTY_VERY_LOW below target', () => {
    const v = l0Judge(input({ novelty: NOVELTY_VERY_LOW - 0.001, yield: { newFindings: 1, newSources: 1 } }));
    expect(v.signal).toBe('pivot');
    expect(v.signals.rule).toBe('low-novelty');
    expect(v.confidence).toBe(CONFIDENCE.pivotLowNovelty);
    expect(v.signals.guard).toBe('none');
  });
  it('does not pivot at NOVELTY_VERY_LOW: ambiguous continue at the minimum middle confidence (escalates)', () => {
    const v = l0Judge(input({ novelty: NOVELTY_VERY_LOW }));
    expect(v.signal).toBe('continue');
    expect(v.signals.rule).toBe('ambiguous');
    expect(v.confidence).toBeCloseTo(CONFIDENCE.middleMin, 6);
    expect(v.confidence).toBeLessThan(0.5);
  });
  it('pivots on a dead end at IDLE_THRESHOLD idle rounds, not one below', () => {
    const idle = { yield: { newFindings: 0, newSources: 0 }, novelty: 0.1 };
    expect(rule(input({ ...idle, idleRounds: IDLE_THRESHOLD }))).toBe('dead-end');
    expect(l0Judge(input({ ...idle, idleRounds: IDLE_THRESHOLD })).confidence).toBe(CONFIDENCE.pivotDeadEnd);
    expect(rule(input({ ...idle, idleRounds: IDLE_THRESHOLD - 1 }))).toBe('ambiguous');
  });
  it('continues on a healthy yield at NOVELTY_HEALTHY, ambiguous just below it', () => {
    const at = l0Judge(input({ novelty: NOVELTY_HEALTHY }));
    expect(at).toMatchObject({ signal: 'continue', confidence: CONFIDENCE.healthy });
    expect(at.signals.rule).toBe('healthy-yield');
    const below = l0Judge(input({ novelty: NOVELTY_HEALTHY - 0.001 }));
    expect(below.signals.rule).toBe('ambiguous');
    expect(below.confidence).toBeLessThan(CONFIDENCE.middleMax);
    expect(below.confidence).toBeGreaterThan(0.5);
  });
  it('a high novelty with no new finding is not a healthy yield', () => {
    expect(rule(input({ novelty: 0.9, yield: { newFindings: 0, newSources: 3 } }))).toBe('ambiguous');
  });
  it('middle-ground confidence grows with novelty', () => {
    const a = l0Judge(input({ novelty: 0.1 })).confidence;
    const b = l0Judge(input({ novelty: 0.2 })).confidence;
    expect(b).toBeGreaterThan(a);
  });
  it('flags a round where half the tasks failed instead of reading it as a dead end', () => {
    const v = l0Judge(input({ novelty: 0, yield: { tasksDispatched: 4, tasksFailed: 2, newFindings: 0, newSources: 0 } }));
    expect(v.signal).toBe('continue');
    expect(v.signals.rule).toBe('tasks-failing');
    expect(v.confidence).toBeLessThan(0.5);
    expect(rule(input({ novelty: 0, yield: { tasksDispatched: 4, tasksFailed: 1, newFindings: 0, newSources: 0 } }))).toBe('low-novelty');
  });
  it('is deterministic and records what it used', () => {
    const i = input({ novelty: 0.12 });
    expect(l0Judge(i)).toEqual(l0Judge(i));
    expect(l0Judge(i).signals).toMatchObject({ novelty: 0.12, coverage: 0.5, targetCoverage: 0.8, round: 4 });
  });
});

describe('pivot guards', () => {
  const wantsPivot = { novelty: 0.01, yield: { newFindings: 1, newSources: 1 } };
  it('holds a pivot inside the cooldown as continue (yield alive)', () => {
    const v = l0Judge(input({ ...wantsPivot, round: 6, history: { lastPivotRound: 6 - (PIVOT_COOLDOWN - 1), pivotCount: 1 } }));
    expect(v.signal).toBe('continue');
    expect(v.signals.guard).toBe('pivot-cooldown-continue');
    expect(v.signals.proposedSignal).toBe('pivot');
    expect(v.reason).toContain('cooldown');
  });
  it('allows the pivot once PIVOT_COOLDOWN rounds have passed', () => {
    const v = l0Judge(input({ ...wantsPivot, round: 6, history: { lastPivotRound: 6 - PIVOT_COOLDOWN, pivotCount: MAX_PIVOTS - 1 } }));
    expect(v.signal).toBe('pivot');
    expect(v.signals.guard).toBe('none');
  });
  it('turns a pivot inside the cooldown into stop when yield is dead', () => {
    const v = l0Judge(input({ novelty: 0, idleRounds: IDLE_THRESHOLD, yield: { newFindings: 0, newSources: 0 }, round: 6, history: { lastPivotRound: 5, pivotCount: 1 } }));
    expect(v.signal).toBe('stop');
    expect(v.signals.guard).toBe('pivot-cooldown-stop');
    expect(v.reason).toContain('the path is still dead');
  });
  it('allows the last pivot under the cap and stops instead of one more', () => {
    expect(l0Judge(input({ ...wantsPivot, round: 20, history: { lastPivotRound: 10, pivotCount: MAX_PIVOTS - 1 } })).signal).toBe('pivot');
    const v = l0Judge(input({ ...wantsPivot, round: 20, history: { lastPivotRound: 10, pivotCount: MAX_PIVOTS } }));
    expect(v.signal).toBe('stop');
    expect(v.signals.guard).toBe('pivot-cap-stop');
  });
  it('leaves non-pivot verdicts alone', () => {
    const v = l0Judge(input({ round: 6, history: { lastPivotRound: 5, pivotCount: 9 } }));
    expect(v.signal).toBe('continue');
    expect(v.signals.guard).toBeUndefined();
  });
});
