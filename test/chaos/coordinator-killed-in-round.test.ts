import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/service-processes';
import { baselineRun, ChaosCluster, expectSameRun, fingerprint } from './chaos-support';

const TOPIC = 'chaos drill: the hub dies while the spokes work';

describe('chaos: the coordinator is SIGKILLed while a round is out', () => {
  const cluster = new ChaosCluster('chaos-coord-round', { workerEnv: { SIMULATED_LATENCY_MS: '1000' } });
  beforeAll(async () => {
    await cluster.startAll(1, 2);
  });
  afterAll(() => cluster.stop());

  it('a freshly started coordinator resumes the run, and it matches an undisturbed one', { timeout: 120_000 }, async () => {
    const baseline = await baselineRun(cluster, TOPIC);

    const { id } = await cluster.client.submit({ topic: TOPIC, engine: 'simulated' });
    await cluster.waitForEvent(id, (e) => e.type === 'round.started', 30_000, 'round 1 to start');
    await waitFor(async () => (await cluster.queues.subagents.getActiveCount()) > 0, 30_000, 'a task to be taken');
    await cluster.kill(cluster.coordinators[0]!);

    // The round's tasks finish while no coordinator is alive: their results wait in Redis, kept on the round
    // step, the flow's parent, which BullMQ released to the coordinators' queue when the last one was done.
    const roundTasks = (await cluster.run(id))!.rounds[0]!.taskIds;
    await waitFor(async () => (await Promise.all(roundTasks.map(async (t) => (await cluster.queues.subagents.getJob(t))?.finishedOn))).every(Boolean), 30_000, "the round's tasks to finish");
    expect(await (await cluster.queues.coordinator.getJob(`${id}.round.1`))?.getState()).toBe('waiting');
    expect((await cluster.run(id))?.status).toBe('researching');

    await cluster.startCoordinator();
    expect(await cluster.waitForEnd(id)).toBe('done');
    expectSameRun(await fingerprint(cluster, id), baseline);
  });
});
