import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
