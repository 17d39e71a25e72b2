import { describe, expect, it } from 'vitest';
import type { SubagentTask } from '@orrery/protocol';
import { DispatchedTasks } from './dispatched-tasks';

const task = (taskId: string) => ({ taskId }) as SubagentTask;

describe('DispatchedTasks', () => {
  it('remembers what was dispatched and when, until the result is checked', () => {
    const d = new DispatchedTasks();
    const before = performance.now();
    d.add([task('r.r1.t1'), task('r.r1.t2')]);
    expect(d.get('r.r1.t1')?.task.taskId).toBe('r.r1.t1');
    expect(d.get('r.r1.t1')!.at).toBeGreaterThanOrEqual(before);
    d.delete('r.r1.t1');
    expect(d.get('r.r1.t1')).toBeUndefined();
    expect(d.get('r.r1.t2')).toBeDefined();
  });

  it('is bounded: the oldest entries go first', () => {
    const d = new DispatchedTasks();
    d.add(Array.from({ length: 5001 }, (_, i) => task(`r.r1.t${i}`)));
    expect(d.get('r.r1.t0')).toBeUndefined();
    expect(d.get('r.r1.t1')).toBeDefined();
    expect(d.get('r.r1.t5000')).toBeDefined();
  });
});
