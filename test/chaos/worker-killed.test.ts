import { SearchResultSchema } from '@orrery/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/service-processes';
import { baselineRun, ChaosCluster, expectSameRun, fingerprint } from './chaos-support';

const TOPIC = 'chaos drill: a worker dies mid-task';

describe('chaos: a subagent worker is SIGKILLed while it holds a task', () => {
  const cluster = new ChaosCluster('chaos-worker', { workerEnv: { SIMULATED_LATENCY_MS: '1200' } });
  beforeAll(async () => {
    await cluster.startAll(1, 2);
  });
  afterAll(() => cluster.stop());

  it('another worker takes the task over and the run matches an undisturbed one', { timeout: 120_000 }, async () => {
    const baseline = await baselineRun(cluster, TOPIC);

    const { id } = await cluster.client.submit({ topic: TOPIC, engine: 'simulated' });
    const [victim, survivor] = cluster.workers as [(typeof cluster.workers)[0], (typeof cluster.workers)[0]];
    let taskId: string | undefined;
    await waitFor(async () => Boolean((taskId = await cluster.activeTaskOf(victim, id))), 30_000, 'worker-1 to hold a task');
    await cluster.kill(victim);

    expect(await cluster.waitForEnd(id)).toBe('done');
    expectSameRun(await fingerprint(cluster, id), baseline);

    // The task the dead worker held was finished by the survivor.
    const job = await cluster.queues.subagents.getJob(taskId!);
    expect(SearchResultSchema.parse(job!.returnvalue).stats.workerPid).toBe(survivor.child.pid);
  });
});
