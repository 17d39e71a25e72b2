import { describe, expect, it } from 'vitest';
import { EFFORT } from '../effort/effort-for';
import { EMPTY_SIGNAL_HISTORY, type JudgeInput, type JudgeVerdict, l0Rules, MAX_PIVOTS, PIVOT_COOLDOWN, type SignalHistory, signalHistory } from '@orrery/decisions';
import { nextMove, type NextMove, type PolicyInput, type PolicyState, type PolicyVerdict } from './next-move';

const state = (p: Partial<PolicyState> = {}): PolicyState => ({
  cancelRequested: false,
  classification: 'depth',
  round: 2,
  maxRounds: 5,
  maxTasks: 40,
  tasksDispatched: 8,
  parallel: 4,
  maxNewTasksPerRound: 4,
  history: EMPTY_SIGNAL_HISTORY,
  knownSubtopicIds: ['s1', 's2', 's3'],
  ...p,
});
const figures = (p: Partial<PolicyInput['figures']> = {}): PolicyInput['figures'] => {
  const budgetLeft = p.budgetLeft ?? { dimension: 'tokens', fraction: 0.6 };
  return { coverage: 0.5, targetCoverage: 0.8, novelty: 0.5, budgetLeft, extendableLeft: budgetLeft.dimension === 'costUsd' ? 0.6 : budgetLeft.fraction, ...p };
};

function judgeInput(round: number, history: SignalHistory, p: { novelty?: number; idleRounds?: number } = {}): JudgeInput {
  const idle = p.idleRounds ?? 0;
  return {
    goal: 'g',
    round,
    lastActions: { tasksDispatched: 4, tasksFailed: 0, newSources: idle ? 0 : 3, newFindings: idle ? 0 : 3, newFacets: 0 },
    state: { subtopics: [], coverage: 0.5, novelty: p.novelty ?? 0.5, budgetLeft: { tokens: 0.6, tasks: 0.6, rounds: 0.6, wallSeconds: 0.6 }, idleRounds: idle },
    history,
    stateVersion: 3,
    targetCoverage: 0.8,
  };
}
const judged = (signal: JudgeVerdict['signal'], round: number, history: SignalHistory = EMPTY_SIGNAL_HISTORY, outcome: 'act' | 'needs_review' = 'act'): PolicyVerdict => ({
  by: 'judge',
  outcome,
  verdict: { signal, confidence: 0.9, reason: 'test', level: 'L0', stateVersion: 3, signals: {} },
  input: judgeInput(round, history),
});
const gaps = { thinSubtopicIds: ['s2'], newSubtopics: [{ id: 'n1', title: 'n1', query: 'n1', facetTerms: [], excludeTerms: [], origin: 'gap' as const }] };

const rows: Array<[string, PolicyInput, Partial<NextMove> & { kind: NextMove['kind'] }]> = [
  ['cancelled', { state: state({ cancelRequested: true }), figures: figures() }, { kind: 'synthesize', rule: 'cancelled' }],
  ['straightforward', { state: state({ classification: 'straightforward', round: 1 }), figures: figures() }, { kind: 'synthesize', rule: 'straightforward' }],
  ['round cap', { state: state({ round: 5 }), figures: figures() }, { kind: 'synthesize', rule: 'round-cap' }],
  ['a follow-up at target coverage (inherited evidence counted) → report', { state: state({ followUp: true }), figures: figures({ coverage: 0.85 }) }, { kind: 'synthesize', rule: 'inherited-covered' }],
  ['a follow-up below target → ask the judge', { state: state({ followUp: true }), figures: figures({ coverage: 0.7 }) }, { kind: 'ask-judge' }],
  ['a fresh run at target coverage → ask the judge', { state: state(), figures: figures({ coverage: 0.85 }) }, { kind: 'ask-judge' }],
  ['budget spent below target → person', { state: state(), figures: figures({ budgetLeft: { dimension: 'tasks', fraction: 0 } }) }, { kind: 'review', cause: 'budget-exhausted-below-target' }],
  ['dollars spent below target → report (a dollar cap is final)', { state: state(), figures: figures({ budgetLeft: { dimension: 'costUsd', fraction: 0 } }) }, { kind: 'synthesize', rule: 'budget-exhausted' }],
  ['budget spent at target → report', { state: state(), figures: figures({ coverage: 0.9, budgetLeft: { dimension: 'tokens', fraction: 0 } }) }, { kind: 'synthesize', rule: 'budget-exhausted' }],
  ['under 15% → wrap up', { state: state(), figures: figures({ budgetLeft: { dimension: 'wallSeconds', fraction: 0.149 } }) }, { kind: 'synthesize', rule: 'budget-wrap-up' }],
  ['exactly 15% → no wrap-up, ask the judge', { state: state(), figures: figures({ budgetLeft: { dimension: 'tasks', fraction: 0.15 } }) }, { kind: 'ask-judge' }],
  ['judge stop', { state: state(), figures: figures(), verdict: judged('stop', 2) }, { kind: 'synthesize', rule: 'judge-stop' }],
  ['judge unsure → person', { state: state(), figures: figures(), verdict: judged('continue', 2, EMPTY_SIGNAL_HISTORY, 'needs_review') }, { kind: 'review', cause: 'judge-unsure' }],
  ['judge continue → gaps', { state: state(), figures: figures(), verdict: judged('continue', 2) }, { kind: 'find-gaps', signal: 'continue', maxNewTasks: 4 }],
  ['judge pivot → new plan', { state: state(), figures: figures(), verdict: judged('pivot', 2) }, { kind: 'find-gaps', signal: 'pivot' }],
  ['continue with gaps → thin and new', { state: state(), figures: figures(), verdict: judged('continue', 2), gaps }, { kind: 'round', subtopicIds: ['s2', 'n1'] }],
  ['pivot with gaps → new ones only', { state: state(), figures: figures(), verdict: judged('pivot', 2), gaps }, { kind: 'round', subtopicIds: ['n1'] }],
  ['no gaps → report', { state: state(), figures: figures(), verdict: judged('continue', 2), gaps: { thinSubtopicIds: [], newSubtopics: [] } }, { kind: 'synthesize', rule: 'no-gaps' }],
  ['round trimmed to the tasks left', { state: state({ tasksDispatched: 39 }), figures: figures(), verdict: judged('continue', 2), gaps }, { kind: 'round', subtopicIds: ['s2'] }],
  ['person stop', { state: state({ round: 5 }), figures: figures({ budgetLeft: { dimension: 'tasks', fraction: 0 } }), verdict: { by: 'person', action: 'stop' } }, { kind: 'synthesize', rule: 'person-stop' }],
  ['person continue passes round cap and budget', { state: state({ round: 5 }), figures: figures({ budgetLeft: { dimension: 'tasks', fraction: 0 } }), verdict: { by: 'person', action: 'continue' } }, { kind: 'find-gaps', signal: 'continue' }],
];

describe('nextMove: one row per rule', () => {
  it.each(rows)('%s', (_name, input, expected) => {
    expect(nextMove(input)).toMatchObject(expected);
  });
});

describe('nextMove: pivot guards', () => {
  const afterPivot = signalHistory(EMPTY_SIGNAL_HISTORY, { signal: 'pivot' }, 2);
  it('records a pivot in the history it returns', () => {
    const m = nextMove({ state: state(), figures: figures(), verdict: judged('pivot', 2) });
    expect(m).toMatchObject({ kind: 'find-gaps', history: { pivotCount: 1, lastPivotRound: 2 } });
  });
  it('inside the cooldown a pivot continues', () => {
    const m = nextMove({ state: state({ round: 3, history: afterPivot }), figures: figures(), verdict: judged('pivot', 3, afterPivot) });
    expect(m).toMatchObject({ kind: 'find-gaps', signal: 'continue', history: { pivotCount: 1 } });
  });
  it(`after ${MAX_PIVOTS} pivot(s) and the cooldown, a further pivot ends the run (pivot cap)`, () => {
    const round = 2 + PIVOT_COOLDOWN;
    const m = nextMove({ state: state({ round, history: afterPivot }), figures: figures(), verdict: judged('pivot', round, afterPivot) });
    expect(m).toMatchObject({ kind: 'synthesize', rule: 'judge-stop' });
    expect(m.kind === 'synthesize' && m.decision.conclusion).toMatch(/pivot cap reached/);
  });
  it('the pivot cap fits inside the depth round cap: a run can reach it', () => {
    expect(2 + MAX_PIVOTS * PIVOT_COOLDOWN).toBeLessThanOrEqual(EFFORT.depth.maxRounds - 1);
  });
});

describe('nextMove driven by the L0 rules, round by round', () => {
  /** A depth run whose every round brings nothing: low novelty → pivot; cooldown → continue; dead end → cap → stop. */
  it('a dead run pivots once, waits out the cooldown, then the dead-end pivot hits the cap and the run ends', () => {
    let history: SignalHistory = EMPTY_SIGNAL_HISTORY;
    const moves: string[] = [];
    for (let round = 2; round <= 5; round++) {
      const input = judgeInput(round, history, { novelty: 0, idleRounds: round - 1 });
      const v = l0Rules(input);
      const m = nextMove({ state: state({ round, history }), figures: figures({ novelty: 0 }), verdict: { by: 'judge', outcome: 'act', verdict: v, input } });
      moves.push(`${round}:${String(v.signals.rule)}→${m.kind === 'find-gaps' ? m.signal : m.kind}`);
      if (m.kind !== 'find-gaps') break;
      history = m.history ?? history;
    }
    expect(moves).toEqual(['2:low-novelty→pivot', '3:low-novelty→continue', '4:dead-end→synthesize']);
  });
});
