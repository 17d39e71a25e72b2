import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/service-processes';
import { baselineRun, ChaosCluster, expectSameRun, fingerprint } from './chaos-support';

const TOPIC = 'chaos drill: every delivery at least once';

/**
 * At-least-once delivery, three real ways: a frozen worker whose lock lapses (its task runs twice),
 * a completed task's job delivered again, and a coordinator step delivered again; with two
 * coordinator replicas, every task completion is also seen twice.
 */
describe('chaos: the same task and the same step delivered twice', () => {
  const cluster = new ChaosCluster('chaos-dup', { env: { SUBAGENT_LOCK_MS: '1000' }, workerEnv: { SIMULATED_LATENCY_MS: '1500' } });
  beforeAll(async () => {
    await cluster.startAll(2, 2);
  });
  afterAll(async () => {
    for (const w of cluster.workers) w.child.kill('SIGCONT');
    await cluster.stop();
  });

  it('leaves no duplicate finding, ledger entry or event, and matches an undisturbed run', { timeout: 150_000 }, async () => {
    const baseline = await baselineRun(cluster, TOPIC);

    const { id } = await cluster.client.submit({ topic: TOPIC, engine: 'simulated' });
    const [frozen] = cluster.workers;

    // 1. Freeze a worker holding a task: its lock lapses, the other worker runs the task again.
    let taskId: string | undefined;
    await waitFor(async () => Boolean((taskId = await cluster.activeTaskOf(frozen!, id))), 30_000, 'worker-1 to hold a task');
    frozen!.child.kill('SIGSTOP');
    await waitFor(async () => (await cluster.queues.subagents.getJob(taskId!))?.finishedOn !== undefined, 30_000, `${taskId} to be finished by the other worker`);
    frozen!.child.kill('SIGCONT'); // it finishes its copy too, and BullMQ refuses the stale completion

    // 2. Once round 1 is merged, deliver a completed task again (same id, same payload) ...
    await cluster.waitForEvent(id, (e) => e.type === 'round.completed' && e.round === 1, 60_000, 'round 1 to complete');
    const done = (await cluster.queues.subagents.getJob(taskId!))!;
    // The frozen task really ran twice: both workers logged taking it (the frozen one once it thawed).
    const takers = async () => new Set((await cluster.queues.subagents.getJobLogs(taskId!)).logs.map((l) => /taken by (\S+)/.exec(l)?.[1]));
    await waitFor(async () => (await takers()).size === 2, 10_000, 'both workers to log taking the task');
    expect(await takers()).toEqual(new Set(['worker-1', 'worker-2']));
    const { data, name } = done;
    await done.remove();
    await cluster.queues.subagents.add(name, data, { jobId: taskId });
    // ... and deliver round 1's coordinator step and the plan step again, under fresh job ids.
    await cluster.queues.coordinator.add('round', { step: 'round', runId: id, round: 1 }, { jobId: `${id}.round.1.again` });
    await cluster.queues.coordinator.add('plan', { step: 'plan', runId: id }, { jobId: `${id}.plan.again` });

    expect(await cluster.waitForEnd(id)).toBe('done');
    await waitFor(async () => (await cluster.queues.subagents.getJob(taskId!))?.finishedOn !== undefined, 30_000, 'the redelivered task to finish');
    await waitFor(async () => (await cluster.queues.coordinator.getJob(`${id}.round.1.again`))?.finishedOn !== undefined, 30_000, 'the redelivered step to finish');
    // Let both coordinators see the redelivered task's completion before comparing.
    await new Promise((r) => setTimeout(r, 500));

    expectSameRun(await fingerprint(cluster, id), baseline);
    expect((await cluster.queues.coordinator.getJob(`${id}.plan.again`))?.finishedOn).toBeDefined();
    for (const w of cluster.workers) expect(w.child.exitCode, `${w.name} survived`).toBeNull();
  });
});
