/**
 * Pivots re-plan (issue 18), across processes: a round that brings nothing makes the L0 judge pivot, the policy asks
 * the coordinator engine for a new decomposition, and the next round searches its new subtopics (new ids); the run
 * finishes. A depth run whose gaps keep coming back empty pivots once, and the next pivot hits the pivot cap.
 */
import type { Decision, Run } from '@orrery/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';

describe('pivots re-plan', () => {
  let stack: Stack;
  beforeAll(async () => {
    // Six planned subtopics, s3 and s6 empty (coverage below target); every gap subtopic (g*) comes back empty.
    // The server allows depth its 5 rounds (BUDGET_MAX_ROUNDS; a request may only lower it).
    stack = await startStack('pivot', { workers: 1, env: { BUDGET_MAX_ROUNDS: '5', SIMULATED_SUBTOPICS: '6', SIMULATED_EMPTY_EVERY: '3', SIMULATED_ROUNDS: '10', SIMULATED_DRY: 'gaps' }, workerEnv: { SUBAGENT_CONCURRENCY: '4' } });
  });
  afterAll(async () => stack?.stop());

  const decisionsOf = async (id: string) => (await fetch(`${stack.coordinator.url}/v1/research/${id}/decisions`)).json() as Promise<Decision[]>;
  const finished = async (topic: string, budget?: Record<string, number>): Promise<{ run: Run; decisions: Decision[] }> => {
    const { id } = await stack.client.submit({ topic, engine: 'simulated', ...(budget ? { budget } : {}) });
    const events = await stack.follow(id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
    return { run: await stack.client.run(id), decisions: await decisionsOf(id) };
  };

  it('a pivot asks for a new decomposition: the next round searches new subtopic ids, and the run finishes', async () => {
    const { run, decisions } = await finished('renewable energy policy overview');
    expect(run.rounds.map((r) => r.subtopicIds)).toEqual([['s1', 's2', 's3', 's4', 's5', 's6'], ['g1'], ['p2-1', 'p2-2', 'p2-3', 'p2-4']]);
    expect(decisions.find((d) => d.decisionType === 'judge' && d.signals['signal'] === 'pivot')).toMatchObject({ level: 'L0', signals: { rule: 'low-novelty', round: 2 } });
    expect(decisions.find((d) => d.decisionType === 'replan')).toBeDefined();
    expect(decisions.find((d) => d.decisionType === 'pivot')).toMatchObject({ conclusion: 'round 3: 4 gap-targeted tasks' });
    expect(run.plan!.subtopics.map((s) => s.id)).toEqual(expect.arrayContaining(['p2-1', 'p2-2', 'p2-3', 'p2-4']));
    expect(run.rounds[2]!.newFindings).toBeGreaterThan(0);
    expect(run.signalHistory).toMatchObject({ pivotCount: 1, lastPivotRound: 2 });
  });

  it('a depth run that keeps finding nothing reaches the pivot cap and ends', async () => {
    const { run, decisions } = await finished('The history of renewable energy policy');
    expect(run.plan!.classification).toBe('depth');
    // Round 2 (a gap, empty) → pivot; round 3 the new plan; round 4 (a gap, empty) → pivot again → the cap stops the run.
    expect(run.rounds.map((r) => r.subtopicIds)).toEqual([['s1', 's2', 's3', 's4'], ['g1'], ['p2-1', 'p2-2', 'p2-3', 'p2-4'], ['g3']]);
    const cap = decisions.find((d) => d.decisionType === 'judge-stop');
    expect(cap).toMatchObject({ level: 'L0', conclusion: expect.stringMatching(/pivot cap reached \(1 >= 1 pivots\)/), signals: { round: 4 } });
    expect(run.signalHistory.pivotCount).toBe(1);
  });
});
