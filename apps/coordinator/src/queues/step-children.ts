import { Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import { TaskDispatcher } from './task-dispatcher';

export interface CompletedTask {
  taskId: string;
  value: unknown;
  /** The task's own job, for its payload and timings; gone once retention has removed it. */
  job?: Job;
}

export interface FailedTask {
  taskId: string;
  reason: string;
}

/** What a step's tasks came to: each one done with a result, or failed for good. */
export interface TaskOutcomes {
  completed: CompletedTask[];
  failed: FailedTask[];
}

/** `<prefix>:<queue>:<jobId>` → the job id (BullMQ forbids ':' in ids). */
const idOfKey = (key: string) => key.slice(key.lastIndexOf(':') + 1);

/**
 * A step's tasks, read from the step's job: BullMQ runs a flow's parent only once each child has completed
 * (its result kept on the parent, even after the child's job is gone) or failed for good (its reason kept
 * among the parent's ignored failures). A task in neither was removed before it finished, or the step was
 * delivered outside its flow (by hand): the task's own job says where it stands then.
 */
@Injectable()
export class StepChildren {
  constructor(private readonly dispatcher: TaskDispatcher) {}

  /** The outcomes, or undefined while a task is still out (only a step outside its flow can see that). */
  async outcomes(step: Job, taskIds: string[]): Promise<TaskOutcomes | undefined> {
    const [values, failures] = await Promise.all([step.getChildrenValues(), step.getIgnoredChildrenFailures()]);
    const valueOf = new Map(Object.entries(values).map(([k, v]) => [idOfKey(k), v as unknown]));
    const failureOf = new Map(Object.entries(failures).map(([k, v]) => [idOfKey(k), v]));
    const out: TaskOutcomes = { completed: [], failed: [] };
    let pending = false;
    await Promise.all(
      taskIds.map(async (taskId) => {
        const failure = failureOf.get(taskId);
        if (failure !== undefined) return out.failed.push({ taskId, reason: failure || 'failed' });
        if (valueOf.has(taskId)) {
          const job = await this.dispatcher.taskJob(taskId);
          return out.completed.push({ taskId, value: valueOf.get(taskId), ...(job ? { job } : {}) });
        }
        const { job, state } = await this.dispatcher.jobState('tasks', taskId);
        if (state === 'completed' && job) return out.completed.push({ taskId, value: job.returnvalue, job });
        if (state === 'failed') return out.failed.push({ taskId, reason: job?.failedReason || 'failed' });
        if (state === 'unknown') return out.failed.push({ taskId, reason: 'the task job was removed before its result was collected' });
        pending = true;
      }),
    );
    return pending ? undefined : out;
  }
}
