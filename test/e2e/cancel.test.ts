import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeMessagesApi } from '../support/fake-messages-api';
import { researchScript } from '../support/fake-research-script';
import { waitFor } from '../support/service-processes';
import { type Stack, startStack } from '../support/stack';

describe('cancel', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('cancel', { workers: 1, workerEnv: { SIMULATED_LATENCY_MS: '1500', SUBAGENT_CONCURRENCY: '2' }, env: { SIMULATED_ROUNDS: '3' } });
  });
  afterAll(async () => stack?.stop());

  it('stops dispatching tasks and ends cancelled', async () => {
    const { id } = await stack.client.submit({ topic: 'a slow simulated topic', engine: 'simulated' });
    const events: string[] = [];
    const following = stack.client.waitForEnd(id, (e) => {
      events.push(e.type);
    });
    while (!events.includes('round.started')) await sleep(50);
    const res = await stack.client.cancel(id);
    expect(res.status).toBe('cancelled');
    expect(await following).toBe('cancelled');

    const dispatchedAtCancel = (await stack.jobs('subagents')).filter((j) => j.id!.startsWith(id)).length;
    await sleep(3500); // longer than a task: round 1 would have completed and round 2 been dispatched
    const run = await stack.client.run(id);
    expect(run.status).toBe('cancelled');
    expect(run.rounds.length).toBe(1);
    const jobs = (await stack.jobs('subagents')).filter((j) => j.id!.startsWith(id));
    expect(jobs.length).toBeLessThanOrEqual(dispatchedAtCancel);
    expect(jobs.every((j) => j.id!.includes('.r1.'))).toBe(true);
    expect((await fetch(`${stack.coordinator.url}/v1/research/${id}/report`)).status).toBe(409);
  });
});

/** Cancel answers 202 and ends the run `cancelled` in every state a run can be cancelled in, and it stays so. */
describe('cancel in every state', () => {
  let api: FakeMessagesApi;
  let stack: Stack;
  let releasePlanner: () => void = () => undefined;
  beforeAll(async () => {
    api = await FakeMessagesApi.start();
    const script = researchScript({ rounds: 1 });
    const held = new Promise<void>((r) => (releasePlanner = r));
    api.scriptByRole({ ...script, planner: async (req) => (await held, script['planner']!(req)) });
    stack = await startStack('cancel-states', {
      workers: 1,
      env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: api.baseURL, ANTHROPIC_MAX_RETRIES: '0', SIMULATED_SUBTOPICS: '6', SIMULATED_EMPTY_EVERY: '3' },
      workerEnv: { SIMULATED_LATENCY_MS: '1500', SUBAGENT_CONCURRENCY: '6', ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: api.baseURL },
    });
  }, 90_000);
  afterAll(async () => {
    releasePlanner();
    await stack?.stop();
    await api?.close();
  });

  const statusOf = async (id: string) => (await stack.client.run(id)).status;
  async function cancelled(id: string): Promise<void> {
    const res = await fetch(`${stack.coordinator.url}/v1/research/${id}/cancel`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(202);
    expect(((await res.json()) as { status: string }).status).toBe('cancelled');
    expect((await stack.follow(id)).at(-1)).toMatchObject({ type: 'run.finished', status: 'cancelled' });
  }
  const reach = (id: string, status: string) => waitFor(async () => (await statusOf(id)) === status, 30_000, `the run to be ${status}`);

  it('queued', async () => {
    await stack.queues.coordinator.pause();
    const { id } = await stack.client.submit({ topic: 'a queued simulated topic', engine: 'simulated' });
    expect(await statusOf(id)).toBe('queued');
    await cancelled(id);
    await stack.queues.coordinator.resume();
    await sleep(1000);
    expect(await statusOf(id)).toBe('cancelled');
  });

  it('planning', async () => {
    const { id } = await stack.client.submit({ topic: 'Kestrel River planning held by the planner', engine: 'anthropic' });
    await reach(id, 'planning');
    await cancelled(id);
    releasePlanner();
    await sleep(1500);
    expect(await statusOf(id)).toBe('cancelled');
    expect((await stack.client.run(id)).rounds).toHaveLength(0);
  });

  it('synthesizing', async () => {
    const { id } = await stack.client.submit({ topic: 'a simulated topic to synthesize', engine: 'simulated', budget: { maxTasks: 7 } });
    await reach(id, 'synthesizing');
    await cancelled(id);
    await sleep(2500);
    expect(await statusOf(id)).toBe('cancelled');
    expect((await fetch(`${stack.coordinator.url}/v1/research/${id}/report`)).status).toBe(409);
  });

  it('needs_review', async () => {
    // s3 and s6 come back empty; six tasks exhaust the budget below the target coverage.
    const { id } = await stack.client.submit({ topic: 'a simulated topic for review', engine: 'simulated', budget: { maxTasks: 6 } });
    await reach(id, 'needs_review');
    await cancelled(id);
    const answer = await fetch(`${stack.coordinator.url}/v1/research/${id}/decision`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"action":"continue"}' });
    expect(answer.status).toBe(409);
    expect(await statusOf(id)).toBe('cancelled');
  });
});
