/**
 * The barrier between a step and its tasks, on a real Redis and real BullMQ: dispatch adds the tasks and
 * then the step asleep as a delayed job; the step sees each task as still out, done with its result, or
 * failed for good; the last task's completion wakes the step at once, long before its timer.
 */
import { Queue, QueueEvents, UnrecoverableError, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COORDINATOR_QUEUE, type SearchTask, SUBAGENT_QUEUE } from '@orrery/protocol';
import { loadCoordinatorConfig } from '../../apps/coordinator/src/config/coordinator-config';
import { DispatchedTasks } from '../../apps/coordinator/src/queues/dispatched-tasks';
import { TaskBarrier, TasksPendingError } from '../../apps/coordinator/src/queues/task-barrier';
import { TaskDispatcher } from '../../apps/coordinator/src/queues/task-dispatcher';
import { waitFor } from '../support/service-processes';
import { dropPrefix, REDIS_URL, uniquePrefix } from '../support/test-env';

const RUN = '00000000-0000-4000-8000-000000000001';
const task = (index: number, query: string): SearchTask =>
  ({ kind: 'search', taskId: `${RUN}.r1.t${index}`, runId: RUN, round: 1, engine: 'simulated', subtopicId: `s${index}`, query }) as SearchTask;

describe('task barrier (real Redis, real BullMQ)', () => {
  const prefix = uniquePrefix('barrier');
  const connection = { url: REDIS_URL };
  let steps: Queue;
  let tasks: Queue;
  let events: QueueEvents;
  let worker: Worker;
  let dispatcher: TaskDispatcher;
  let dispatched: DispatchedTasks;
  let barrier: TaskBarrier;
  let release: () => void = () => undefined;

  beforeAll(async () => {
    steps = new Queue(COORDINATOR_QUEUE, { connection, prefix });
    tasks = new Queue(SUBAGENT_QUEUE, { connection, prefix });
    events = new QueueEvents(SUBAGENT_QUEUE, { connection, prefix });
    const held = new Promise<void>((r) => (release = r));
    worker = new Worker(
      SUBAGENT_QUEUE,
      async (job) => {
        if (job.data.query === 'bad') throw new UnrecoverableError('no such thing');
        if (job.data.query === 'held') await held;
        return { echo: job.data.query };
      },
      { connection, prefix, concurrency: 4 },
    );
    // A long timer: only a wake-up can make the step due within the test.
    const config = loadCoordinatorConfig({ REDIS_URL, QUEUE_PREFIX: prefix, STEP_RECHECK_MIN_MS: '60000', STEP_RECHECK_MAX_MS: '60000', TASK_ATTEMPTS: '1' });
    dispatched = new DispatchedTasks();
    dispatcher = new TaskDispatcher(steps, tasks, config, dispatched);
    barrier = new TaskBarrier(dispatcher);
    await Promise.all([events.waitUntilReady(), worker.waitUntilReady()]);
  });

  afterAll(async () => {
    release();
    await Promise.all([worker, events, steps, tasks].map((h) => h.close()));
    await dropPrefix(prefix);
  });

  it('holds the step while a task is out, collects results and failures, and is woken by the last task', async () => {
    const all = [task(1, 'fine'), task(2, 'bad'), task(3, 'held')];
    const ids = all.map((t) => t.taskId);
    const wakes: Promise<void>[] = [];
    const settle = ({ jobId }: { jobId: string }) => {
      const step = dispatched.settled(jobId);
      if (step) wakes.push(dispatcher.wake(step));
    };
    events.on('completed', settle);
    events.on('failed', settle);

    await dispatcher.dispatchRound(RUN, 1, all);
    const step = (await steps.getJob(`${RUN}.round.1`))!;
    expect(await step.getState()).toBe('delayed');

    await waitFor(async () => (await barrier.settle(ids)).pending.length === 1, 10_000, 'two tasks to settle');
    await expect(barrier.require(ids)).rejects.toBeInstanceOf(TasksPendingError);
    const partial = await barrier.settle(ids);
    expect(partial.pending).toEqual([ids[2]]);
    expect(partial.completed.map((c) => [c.taskId, c.value])).toEqual([[ids[0], { echo: 'fine' }]]);
    expect(partial.failed).toEqual([{ taskId: ids[1], reason: 'no such thing' }]);
    expect(await step.getState()).toBe('delayed');

    release();
    await waitFor(async () => (await steps.getJob(`${RUN}.round.1`))?.getState().then((s) => s === 'waiting') ?? false, 10_000, 'the last task to wake the step');
    await Promise.all(wakes);
    const done = await barrier.require(ids);
    expect(done.completed.map((c) => c.taskId).sort()).toEqual([ids[0], ids[2]]);

    // A task whose job is gone is reported, not waited on.
    const gone = await barrier.settle([`${RUN}.r9.t1`]);
    expect(gone.failed[0]!.reason).toMatch(/the task job is gone/);
  });

  it('wakes a step whose tasks all finished before the step itself was added', async () => {
    // A busy coordinator: the step is added only after its instant task has finished and been seen.
    const add = steps.add.bind(steps);
    steps.add = (async (...args: Parameters<Queue['add']>) => {
      await new Promise((r) => setTimeout(r, 300));
      return add(...args);
    }) as Queue['add'];
    try {
      await dispatcher.dispatchRound(RUN, 2, [{ ...task(1, 'fine'), taskId: `${RUN}.r2.t1` }]);
    } finally {
      steps.add = add;
    }
    expect((await tasks.getJob(`${RUN}.r2.t1`))?.finishedOn).toBeDefined();
    await waitFor(async () => (await (await steps.getJob(`${RUN}.round.2`))?.getState()) === 'waiting', 5_000, 'the step to be woken');
  });
});
