import { emptyUsage } from '@orrery/engine';
import type { Run } from '@orrery/protocol';
import { describe, expect, it, vi } from 'vitest';
import { openBudgetAccount } from '../../budget';
import { RoundStep, StaleStateError } from './round.step';

/** A run whose round 1 has settled; the round step judges it on state version 7. */
function run(stateVersion: number): Run {
  const now = new Date().toISOString();
  const budget = { maxTokens: 1000, maxTasks: 10, maxRounds: 3, maxWallSeconds: 600 };
  return {
    id: 'r1',
    topic: 'trade policy',
    engine: 'corpus',
    status: 'researching',
    stateVersion,
    createdAt: now,
    updatedAt: now,
    coverageCheck: true,
    budget,
    plan: { classification: 'breadth', subtopics: [{ id: 's1', title: 'Tariffs', query: 'tariffs', facetTerms: [], excludeTerms: [], origin: 'plan' }] },
    rounds: [{ n: 1, status: 'dispatched', taskIds: ['r1.r1.s1'], subtopicIds: ['s1'], completed: 1, failed: 0, returned: 2, newFindings: 2, newSources: 2, novelty: 0, coverage: 0, startedAt: now }],
    evidence: {},
    counters: { tasksDispatched: 1, tasksCompleted: 1, tasksFailed: 0, findings: 2, sources: 2 },
    usage: emptyUsage(),
    errors: [],
    cancelRequested: false,
    judgeEnabled: true,
    signalHistory: { lastNonContinue: null, lastPivotRound: null, pivotCount: 0 },
    budgetLedger: openBudgetAccount(budget, Date.parse(now)),
  } as Run;
}

describe('RoundStep: the state-version guard', () => {
  it('drops a move decided on a state that moved on: nothing is written or dispatched, a stale-verdict decision is logged', async () => {
    const judged = run(7);
    let written: Run | undefined;
    // Another writer (a person's answer, a cancel) bumped the run to version 8 while the judge was deciding.
    const store = { mutate: vi.fn(async (_id: string, change: (r: Run) => Run | undefined) => (written = change(structuredClone(run(8))))) };
    const ledger = { findings: async () => [], broughtBy: async () => [], counts: async () => ({}) };
    const decisions = { log: vi.fn(async () => null) };
    const decision = { decide: vi.fn(async () => ({ move: { kind: 'synthesize' as const }, log: [], written: vi.fn() })) };
    const pending = { dispatch: vi.fn(), announce: vi.fn(), taskEstimate: () => ({ tokens: 0, costUsd: 0 }) };
    const step = new RoundStep(store as never, {} as never, ledger as never, decisions as never, { append: vi.fn() } as never, {} as never, {} as never, decision as never, pending as never, {} as never, { reached: async () => undefined } as never);
    const complete = (step as unknown as { complete(run: Run, round: number): Promise<void> }).complete.bind(step);

    await expect(complete(judged, 1)).rejects.toBeInstanceOf(StaleStateError);
    expect(decision.decide).toHaveBeenCalledOnce();
    expect(written).toBeUndefined();
    expect(pending.dispatch).not.toHaveBeenCalled();
    expect(decisions.log).toHaveBeenCalledWith('r1', 'round:1:stale:7', expect.objectContaining({ decisionType: 'stale-verdict', signals: { judgedVersion: 7, currentVersion: 8 } }));
  });

  it('writes the move when the state is the one it was decided on', async () => {
    let written: Run | undefined;
    const store = { mutate: vi.fn(async (_id: string, change: (r: Run) => Run | undefined) => (written = change(structuredClone(run(7))))!) };
    const ledger = { findings: async () => [], broughtBy: async () => [], counts: async () => ({}) };
    const pending = { dispatch: vi.fn(), announce: vi.fn(), taskEstimate: () => ({ tokens: 0, costUsd: 0 }) };
    const decision = { decide: vi.fn(async () => ({ move: { kind: 'synthesize' as const }, log: [], written: vi.fn() })) };
    const step = new RoundStep(store as never, {} as never, ledger as never, { log: vi.fn() } as never, { append: vi.fn() } as never, {} as never, {} as never, decision as never, pending as never, {} as never, { reached: async () => undefined } as never);
    await (step as unknown as { complete(run: Run, round: number): Promise<void> }).complete(run(7), 1);
    expect(written?.rounds[0]).toMatchObject({ status: 'completed' });
    expect(written?.status).toBe('synthesizing');
    expect(pending.dispatch).toHaveBeenCalledOnce();
  });
});
