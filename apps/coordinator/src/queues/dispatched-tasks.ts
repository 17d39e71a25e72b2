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
 * against the payload in hand, without reading it back from Redis, and its round trip is measured.
 * Bounded; anything not here (another replica's task, one from before a restart, one evicted) is read
 * from its job instead.
 */
@Injectable()
export class DispatchedTasks {
  private readonly tasks = new BoundedMap<string, DispatchedTask>(LIMIT);

  add(tasks: SubagentTask[]): void {
    const at = performance.now();
    for (const task of tasks) this.tasks.set(task.taskId, { task, at });
  }

  get(taskId: string): DispatchedTask | undefined {
    return this.tasks.get(taskId);
  }

  delete(taskId: string): void {
    this.tasks.delete(taskId);
  }
}
