import { Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import { TaskDispatcher } from './task-dispatcher';

export interface CompletedTask {
  taskId: string;
  value: unknown;
  job: Job;
}

export interface FailedTask {
  taskId: string;
  reason: string;
}

/** Where a step's tasks stand: each one either still out, done with a result, or failed for good. */
export interface TaskSettlement {
  pending: string[];
  completed: CompletedTask[];
  failed: FailedTask[];
}

/** Thrown by a step whose tasks are still out: the step goes back to sleep until they settle. */
export class TasksPendingError extends Error {
  constructor(readonly pending: string[]) {
    super(`${pending.length} task(s) still out: ${pending.slice(0, 3).join(', ')}${pending.length > 3 ? ', …' : ''}`);
    this.name = 'TasksPendingError';
  }
}

/**
 * The barrier between a step and the tasks it waits on, read from the task jobs themselves: a task is
 * settled once BullMQ has it completed or failed for good. The step's job sleeps as a delayed job, so it
 * is as durable as the tasks: whichever coordinator is alive when it wakes collects the results.
 */
@Injectable()
export class TaskBarrier {
  constructor(private readonly dispatcher: TaskDispatcher) {}

  async settle(taskIds: string[]): Promise<TaskSettlement> {
    const out: TaskSettlement = { pending: [], completed: [], failed: [] };
    const states = await Promise.all(taskIds.map(async (taskId) => ({ taskId, ...(await this.dispatcher.jobState('tasks', taskId)) })));
    for (const { taskId, job, state } of states) {
      if (state === 'completed' && job) out.completed.push({ taskId, value: job.returnvalue, job });
      else if (state === 'failed') out.failed.push({ taskId, reason: job?.failedReason || 'failed' });
      // Retention keeps finished jobs far longer than a round lasts (JOB_RETENTION_*); a job gone is reported, not waited on.
      else if (state === 'unknown') out.failed.push({ taskId, reason: 'the task job is gone (removed, or beyond JOB_RETENTION_COUNT); its result was not collected' });
      else out.pending.push(taskId);
    }
    return out;
  }

  /** The settlement, or TasksPendingError while any task is still out. */
  async require(taskIds: string[]): Promise<TaskSettlement> {
    const settled = await this.settle(taskIds);
    if (settled.pending.length) throw new TasksPendingError(settled.pending);
    return settled;
  }
}
