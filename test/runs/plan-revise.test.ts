/**
 * Plans you can talk to (issue 47): a plan review answered in words comes back revised, round after round, and the
 * revised plan is the one dispatched; a review nobody answers is approved after its wait, by a delayed job that
 * outlives the coordinator that scheduled it.
 */
import type { Decision, Plan, Run, SubagentTask } from '@orrery/protocol';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCoordinatorProcess, waitFor } from '../support/service-processes';
import { writeDatedCorpus, yearOfSource } from '../support/dated-corpus';
import { type Stack, startStack } from '../support/stack';

const CORPUS = writeDatedCorpus(mkdtempSync(join(tmpdir(), 'dated-kestrel-')));

describe('plan review in words', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('plan-revise', { workers: 1, env: { CORPORA: `gazette=${CORPUS}`, DEFAULT_CORPUS: 'gazette' } });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  const decide = async (id: string, body: unknown) => {
    const res = await fetch(`${stack.coordinator.url}/v1/research/${id}/decision`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as { proposedPlan?: Plan; revision?: { feedback: string; changes: string[] }; message?: string } };
  };
  const proposed = async (id: string): Promise<Run> => {
    let run: Run | undefined;
    await waitFor(async () => (run = await stack.client.run(id)).status === 'needs_review', 60_000, 'the plan to be proposed');
    return run!;
  };
  const searchTasks = async (id: string) =>
    (await stack.jobs('subagents')).filter((j) => j.id!.startsWith(id) && j.name === 'search').map((j) => j.data as Extract<SubagentTask, { kind: 'search' }>);
  const decisions = async (id: string): Promise<Decision[]> => (await (await fetch(`${stack.coordinator.url}/v1/research/${id}/decisions`)).json()) as Decision[];

  it('revises the plan by feedback in words, as many rounds as asked, and dispatches the last revision', async () => {
    const { id } = await stack.client.submit({ topic: 'The Kestrel River: fishery, floods and navigation', review: { mode: 'plan' } });
    const first = (await proposed(id)).proposedPlan!;
    expect(first.excludeYears).toBeUndefined();

    // Round 1 of feedback: years left out, a subtopic added.
    let res = await decide(id, { action: 'revise', feedback: 'leave out the 1800s; add tariffs' });
    expect(res.status, res.body.message).toBe(200);
    const second = res.body.proposedPlan!;
    expect(second.excludeYears).toEqual([{ from: 1800, to: 1899 }]);
    const tariffs = second.subtopics.find((s) => s.facetTerms.includes('tariffs'))!;
    expect(tariffs).toBeDefined();
    expect(second.subtopics.filter((s) => s.id !== tariffs.id).map((s) => s.id)).toEqual(first.subtopics.map((s) => s.id));
    expect(res.body.revision!.changes.join('\n')).toMatch(/1800–1899[\s\S]*added "Tariffs"/);
    // Still waiting, with nothing dispatched.
    let run = await stack.client.run(id);
    expect(run.status).toBe('needs_review');
    expect(run.proposedPlan).toEqual(second);
    expect(await searchTasks(id)).toEqual([]);

    // Round 2: a scope added, one dropped.
    res = await decide(id, { action: 'revise', feedback: 'add floods, and drop the overview' });
    expect(res.status, res.body.message).toBe(200);
    const third = res.body.proposedPlan!;
    expect(third.subtopics.map((s) => s.id)).toEqual([...second.subtopics.filter((s) => s.id !== 'overview').map((s) => s.id), 'floods']);
    expect(third.excludeYears).toEqual([{ from: 1800, to: 1899 }]);
    run = await stack.client.run(id);
    expect(run.planRevisions!.map((r) => r.feedback)).toEqual(['leave out the 1800s; add tariffs', 'add floods, and drop the overview']);

    // Approved as it now stands: the last revision is what goes out, and no search reads the 1800s.
    expect((await decide(id, { action: 'continue' })).status).toBe(202);
    expect(await stack.client.waitForEnd(id)).toBe('done');
    const done = await stack.client.run(id);
    expect(done.plan!.excludeYears).toEqual([{ from: 1800, to: 1899 }]);
    expect(done.rounds[0]!.subtopicIds).toEqual(third.subtopics.map((s) => s.id));
    const tasks = await searchTasks(id);
    const round1 = tasks.filter((t) => t.round === 1).sort((a, b) => a.taskId.localeCompare(b.taskId, 'en', { numeric: true }));
    expect(round1.map((t) => [t.subtopicId, t.query])).toEqual(third.subtopics.map((s) => [s.id, s.query]));
    for (const t of tasks) expect(t.context.scope.excludeYears).toEqual([{ from: 1800, to: 1899 }]);
    const report = await stack.client.report(id);
    expect(report.sources.length).toBeGreaterThan(0);
    for (const s of report.sources) expect(yearOfSource(s.id)).toBeGreaterThanOrEqual(1900);
    const log = await decisions(id);
    expect(log.filter((d) => d.decisionType === 'plan-revision')).toHaveLength(2);
    expect(log.filter((d) => d.decisionType === 'human-decision').map((d) => d.signals['action'])).toEqual(['revise', 'revise', 'continue']);
  });

  it('refuses a revision that would leave a plan it cannot dispatch, and a revision once the plan is answered', async () => {
    const { id } = await stack.client.submit({ topic: 'The Kestrel River: fishery, floods and navigation', review: 'plan', budget: { maxTasks: 2 } });
    const plan = (await proposed(id)).proposedPlan!;
    const res = await decide(id, { action: 'revise', feedback: 'add tariffs, add bridges, add cooperatives' });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/does not fit the budget|at most/);
    expect((await stack.client.run(id)).proposedPlan).toEqual(plan);
    expect((await decide(id, { action: 'revise', feedback: ' ' })).status).toBe(400);
    expect((await decide(id, { action: 'stop' })).status).toBe(202);
    expect((await decide(id, { action: 'revise', feedback: 'add tariffs' })).status).toBe(409);
  });

  it('a revision waits anew, and a person who answers first withdraws the wait', async () => {
    const { id } = await stack.client.submit({ topic: 'The Kestrel River: fishery, floods and navigation', review: { mode: 'plan', autoApproveAfterSeconds: 3600 } });
    const run = await proposed(id);
    const res = await decide(id, { action: 'revise', feedback: 'add tariffs' });
    expect(res.status).toBe(200);
    const revised = await stack.client.run(id);
    expect(Date.parse(revised.autoApproveAt!)).toBeGreaterThan(Date.parse(run.autoApproveAt!));
    expect(await (await stack.queues.coordinator.getJob(`${id}.autoapprove.1`))!.getState()).toBe('delayed');
    expect((await decide(id, { action: 'continue' })).status).toBe(202);
    expect(await stack.queues.coordinator.getJob(`${id}.autoapprove.1`)).toBeUndefined();
    expect(await stack.client.waitForEnd(id)).toBe('done');
  });
  it('an unanswered plan is approved after its wait by a delayed job, though the coordinator that scheduled it died', async () => {
    const submitted = Date.now();
    const { id } = await stack.client.submit({ topic: 'The Kestrel River: fishery, floods and navigation', review: { mode: 'plan', autoApproveAfterSeconds: 6 } });
    const run = await proposed(id);
    const at = Date.parse(run.autoApproveAt!);
    expect(at).toBeGreaterThanOrEqual(submitted + 6_000);
    const job = await stack.queues.coordinator.getJob(`${id}.autoapprove.0`);
    expect(await job!.getState()).toBe('delayed');

    // The coordinator dies while the run waits; a new one starts on the same Redis.
    await stack.coordinator.kill('SIGKILL');
    const next = await startCoordinatorProcess({ QUEUE_PREFIX: stack.prefix, ENGINE: 'corpus', CORPORA: `gazette=${CORPUS}`, DEFAULT_CORPUS: 'gazette' });
    try {
      expect(((await (await fetch(`${next.url}/v1/research/${id}`)).json()) as Run).status).toBe('needs_review');
      let left = 0;
      await waitFor(async () => {
        const r = await (await fetch(`${next.url}/v1/research/${id}`)).json() as Run;
        if (r.status !== 'needs_review' && !left) left = Date.now();
        return r.status === 'done';
      }, 90_000, 'the run to be approved and to end');
      expect(left).toBeGreaterThanOrEqual(at);
      const done = (await (await fetch(`${next.url}/v1/research/${id}`)).json()) as Run;
      expect(done.rounds[0]!.subtopicIds).toEqual(run.proposedPlan!.subtopics.map((s) => s.id));
      const log = (await (await fetch(`${next.url}/v1/research/${id}/decisions`)).json()) as Decision[];
      expect(log.find((d) => d.decisionType === 'auto-approve')).toMatchObject({ level: 'L3', signals: { revision: 0, afterSeconds: 6 } });
    } finally {
      await next.kill('SIGTERM');
    }
  });

});
