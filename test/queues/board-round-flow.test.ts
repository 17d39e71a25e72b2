/**
 * Bull Board shows a round as a parent with its tasks: after a real run (a coordinator and a worker process,
 * real BullMQ), the board's HTTP API, the one its page reads, answers a round step's flow with the round's task
 * jobs as its children, and a task job with the round step as its parent.
 */
import { COORDINATOR_QUEUE, SUBAGENT_QUEUE } from '@orrery/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';

interface FlowNode {
  id: string;
  queueName: string;
  state: string;
  children: FlowNode[];
}

describe('Bull Board: a round is a parent with its tasks', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('board-round', { workers: 1 });
  });
  afterAll(async () => stack?.stop());

  // Keyless on loopback: the local user is the board's admin.
  const board = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${stack.coordinator.url}/queues/api/queues/${path}`);
    expect(res.status, path).toBe(200);
    return (await res.json()) as T;
  };

  it('lists a round step’s task jobs as its children, and a task job names the step as its parent', { timeout: 120_000 }, async () => {
    const { id } = await stack.client.submit({ topic: 'Kestrel River economy policy' });
    const events = await stack.follow(id);
    const started = events.find((e) => e.type === 'round.started' && e.round === 1) as { tasks: { taskId: string }[] } | undefined;
    const taskIds = started!.tasks.map((t) => t.taskId).sort();
    expect(taskIds.length).toBeGreaterThan(0);
    const stepId = `${id}.round.1`;

    const flow = await board<{ isFlowNode: boolean; flowRoot: FlowNode | null }>(`${COORDINATOR_QUEUE}/${encodeURIComponent(stepId)}/flow`);
    expect(flow.isFlowNode).toBe(true);
    expect(flow.flowRoot).toMatchObject({ id: stepId, queueName: COORDINATOR_QUEUE, state: 'completed' });
    expect(flow.flowRoot!.children.map((c) => c.id).sort()).toEqual(taskIds);
    for (const child of flow.flowRoot!.children) expect(child).toMatchObject({ queueName: SUBAGENT_QUEUE, state: 'completed' });

    // From a task, the board finds the same tree through the task's parent.
    const task = await board<{ job: { id: string; opts: { parent?: { id: string; queue: string } } } }>(`${SUBAGENT_QUEUE}/${encodeURIComponent(taskIds[0]!)}`);
    expect(task.job.opts.parent).toMatchObject({ id: stepId, queue: expect.stringMatching(new RegExp(`:${COORDINATOR_QUEUE}$`)) });
    const fromTask = await board<{ flowRoot: FlowNode | null }>(`${SUBAGENT_QUEUE}/${encodeURIComponent(taskIds[0]!)}/flow`);
    expect(fromTask.flowRoot?.id).toBe(stepId);
    expect(fromTask.flowRoot!.children.map((c) => c.id).sort()).toEqual(taskIds);
  });
});
