/**
 * A round as a BullMQ flow, on a real Redis and real BullMQ: the round step is the parent of its tasks, held in
 * `waiting-children` until each task has completed or failed for good; results reach the hub as they arrive; a
 * failed, a removed or a re-dispatched task never hangs the step; the step reads every outcome from its own job.
 */
import { FlowProducer, Queue, QueueEvents, UnrecoverableError, Worker } from 'bullmq';
import { queuePrefix } from '@orrery/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COORDINATOR_QUEUE, type SearchTask, SUBAGENT_QUEUE } from '@orrery/protocol';
import { loadCoordinatorConfig } from '../../apps/coordinator/src/config/coordinator-config';
import { DispatchedTasks } from '../../apps/coordinator/src/queues/dispatched-tasks';
import { StepChildren } from '../../apps/coordinator/src/queues/step-children';
import { TaskDispatcher } from '../../apps/coordinator/src/queues/task-dispatcher';
import { waitFor } from '../support/service-processes';
import { dropPrefix, REDIS_URL, uniquePrefix } from '../support/test-env';

const RUN = '00000000-0000-4000-8000-000000000001';
const task = (round: number, index: number, query: string): SearchTask =>
  ({ kind: 'search', taskId: `${RUN}.r${round}.t${index}`, runId: RUN, round, engine: 'simulated', subtopicId: `s${index}`, query }) as SearchTask;

describe('rounds as BullMQ flows (real Redis, real BullMQ)', () => {
  const prefix = uniquePrefix('round-flow');
  const connection = { url: REDIS_URL };
  let steps: Queue;
  let tasks: Queue;
  let flows: FlowProducer;
  let events: QueueEvents;
  let worker: Worker;
  let dispatcher: TaskDispatcher;
  let children: StepChildren;
  /** Tasks whose query is `held:<name>` finish once `release(name)` is called. */
  const gates = new Map<string, () => void>();
  const held = new Map<string, Promise<void>>();
  const hold = (name: string) => held.set(name, new Promise<void>((r) => gates.set(name, r)));
  const release = (name: string) => gates.get(name)!();
  const completions: string[] = [];
  const stepState = async (id: string) => (await steps.getJob(id))?.getState();

  beforeAll(async () => {
    steps = new Queue(COORDINATOR_QUEUE, { connection, prefix: queuePrefix(prefix) });
    tasks = new Queue(SUBAGENT_QUEUE, { connection, prefix: queuePrefix(prefix) });
    flows = new FlowProducer({ connection, prefix: queuePrefix(prefix) });
    events = new QueueEvents(SUBAGENT_QUEUE, { connection, prefix: queuePrefix(prefix) });
    events.on('completed', ({ jobId }) => completions.push(jobId));
    worker = new Worker(
      SUBAGENT_QUEUE,
      async (job) => {
        const query = String(job.data.query);
        if (query === 'bad') throw new UnrecoverableError('no such thing');
        if (query.startsWith('held:')) await held.get(query.slice(5));
        return { echo: query };
      },
      { connection, prefix: queuePrefix(prefix), concurrency: 4 },
    );
    const config = loadCoordinatorConfig({ REDIS_URL, QUEUE_PREFIX: prefix, TASK_ATTEMPTS: '1' });
    dispatcher = new TaskDispatcher(steps, tasks, flows, config, new DispatchedTasks());
    children = new StepChildren(dispatcher);
    await Promise.all([events.waitUntilReady(), worker.waitUntilReady()]);
  });

  afterAll(async () => {
    for (const r of gates.values()) r();
    await Promise.all([worker, events, steps, tasks, flows].map((h) => h.close()));
    await dispatcher.onModuleDestroy();
    await dropPrefix(prefix);
  });

  it('holds the step while a task is out, passes results on as they arrive, and runs the step after a failure', async () => {
    hold('a');
    const all = [task(1, 1, 'fine'), task(1, 2, 'bad'), task(1, 3, 'held:a')];
    const ids = all.map((t) => t.taskId);
    await dispatcher.dispatchRound(RUN, 1, all);
    const stepId = `${RUN}.round.1`;

    // The first result reaches the hub (QueueEvents) while the round is still out; the failure does not release the step.
    await waitFor(() => completions.includes(ids[0]!), 10_000, 'the first result to arrive');
    await waitFor(async () => (await tasks.getJob(ids[1]!))?.getState().then((s) => s === 'failed') ?? false, 10_000, 'the bad task to fail');
    expect(await stepState(stepId)).toBe('waiting-children');

    release('a');
    await waitFor(async () => (await stepState(stepId)) === 'waiting', 10_000, 'the last task to release the step');
    const outcomes = (await children.outcomes((await steps.getJob(stepId))!, ids))!;
    expect(outcomes.completed.map((c) => [c.taskId, c.value]).sort()).toEqual([
      [ids[0], { echo: 'fine' }],
      [ids[2], { echo: 'held:a' }],
    ]);
    expect(outcomes.failed).toEqual([{ taskId: ids[1], reason: 'no such thing' }]);
  });

  it('a task removed before it ran (a cancelled run, an operator) releases the step and is reported', async () => {
    hold('b');
    await tasks.pause();
    const all = [task(2, 1, 'held:b'), task(2, 2, 'fine')];
    const ids = all.map((t) => t.taskId);
    await dispatcher.dispatchRound(RUN, 2, all);
    await dispatcher.withdraw('tasks', [ids[1]!]);
    expect(await tasks.getJob(ids[1]!)).toBeUndefined();
    await tasks.resume();
    expect(await stepState(`${RUN}.round.2`)).toBe('waiting-children');
    release('b');
    await waitFor(async () => (await stepState(`${RUN}.round.2`)) === 'waiting', 10_000, 'the step to be released');
    const outcomes = (await children.outcomes((await steps.getJob(`${RUN}.round.2`))!, ids))!;
    expect(outcomes.completed.map((c) => c.taskId)).toEqual([ids[0]]);
    expect(outcomes.failed).toEqual([{ taskId: ids[1], reason: 'the task job was removed before its result was collected' }]);
  });

  it('a round dispatched twice (a step redelivered) is one flow: a task already failed for good does not hang it', async () => {
    hold('c');
    const all = [task(3, 1, 'bad'), task(3, 2, 'held:c')];
    await dispatcher.dispatchRound(RUN, 3, all);
    await waitFor(async () => (await tasks.getJob(all[0]!.taskId))?.getState().then((s) => s === 'failed') ?? false, 10_000, 'the bad task to fail');
    await dispatcher.dispatchRound(RUN, 3, all);
    release('c');
    await waitFor(async () => (await stepState(`${RUN}.round.3`)) === 'waiting', 10_000, 'the step to be released');
  });

  it('a step delivered outside its flow while its tasks are out leaves them to the flow', async () => {
    hold('d');
    const all = [task(4, 1, 'held:d')];
    await dispatcher.dispatchRound(RUN, 4, all);
    const stray = await steps.add('round', { step: 'round', runId: RUN, round: 4 }, { jobId: `${RUN}.round.4.again` });
    await waitFor(async () => (await tasks.getJob(all[0]!.taskId))?.getState().then((s) => s === 'active') ?? false, 10_000, 'the task to start');
    expect(await children.outcomes(stray, [all[0]!.taskId])).toBeUndefined();
    release('d');
    await waitFor(async () => (await stepState(`${RUN}.round.4`)) === 'waiting', 10_000, 'the step to be released');
    expect((await children.outcomes(stray, [all[0]!.taskId]))?.completed.map((c) => c.value)).toEqual([{ echo: 'held:d' }]);
  });
});
