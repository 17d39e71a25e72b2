import { Injectable } from '@nestjs/common';
import type { SubagentTask } from '@orrery/protocol';
import { BoundedMap } from '@orrery/runtime';

/** What this coordinator dispatched and when, by the monotonic clock. */
export interface DispatchedTask {
  task: SubagentTask;
  at: number;
}

const LIMIT = 5000;

/**
 * The tasks this replica dispatched, kept until their results are checked: a result is then checked
 * against the payload in hand, without reading it back from Redis. Bounded; anything not here (another
 * replica's task, one from before a restart, one evicted) is read from its job instead.
 *
 * Also which step waits on which tasks, so that the last task's completion wakes its step at once.
 * A step nobody here knows of wakes on its own timer.
 */
@Injectable()
export class DispatchedTasks {
  private readonly tasks = new BoundedMap<string, DispatchedTask>(LIMIT);
  private readonly stepOf = new BoundedMap<string, string>(LIMIT);
  private readonly outstanding = new BoundedMap<string, Set<string>>(LIMIT);
  /** Dispatches waiting on a step's tasks (see `settledOrAfter`), released when the last one settles. */
  private readonly waiting = new Map<string, () => void>();

  add(tasks: SubagentTask[], stepJobId: string): void {
    const at = performance.now();
    for (const task of tasks) {
      this.tasks.set(task.taskId, { task, at });
      this.stepOf.set(task.taskId, stepJobId);
    }
    this.outstanding.set(stepJobId, new Set(tasks.map((t) => t.taskId)));
  }

  get(taskId: string): DispatchedTask | undefined {
    return this.tasks.get(taskId);
  }

  delete(taskId: string): void {
    this.tasks.delete(taskId);
  }

  /** Whether every task the step waits on has settled, as far as this replica has seen. */
  allSettled(stepJobId: string): boolean {
    return this.outstanding.get(stepJobId)?.size === 0;
  }

  /**
   * A task settled (done, or failed for good): the step to wake when it was the last one out. None while
   * the dispatch still holds the step's write: it is released here, and wakes the step once written.
   */
  settled(taskId: string): string | undefined {
    const step = this.stepOf.get(taskId);
    const out = step ? this.outstanding.get(step) : undefined;
    if (!step || !out) return undefined;
    out.delete(taskId);
    if (out.size) return undefined;
    const held = this.waiting.get(step);
    if (!held) return step;
    held();
    return undefined;
  }

  /** Resolves once every task the step waits on has settled here, or after `ms`, whichever comes first. */
  settledOrAfter(stepJobId: string, ms: number): Promise<void> {
    if (this.allSettled(stepJobId)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiting.delete(stepJobId);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiting.set(stepJobId, done);
    });
  }
}
