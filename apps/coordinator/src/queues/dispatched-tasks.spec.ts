import { describe, expect, it } from 'vitest';
import type { SubagentTask } from '@orrery/protocol';
import { DispatchedTasks } from './dispatched-tasks';

const task = (taskId: string) => ({ taskId }) as SubagentTask;

describe('DispatchedTasks', () => {
  it('remembers what was dispatched and when, until the result is checked', () => {
    const d = new DispatchedTasks();
    const before = performance.now();
    d.add([task('r.r1.t1'), task('r.r1.t2')], 'r.round.1');
    expect(d.get('r.r1.t1')?.task.taskId).toBe('r.r1.t1');
    expect(d.get('r.r1.t1')!.at).toBeGreaterThanOrEqual(before);
    d.delete('r.r1.t1');
    expect(d.get('r.r1.t1')).toBeUndefined();
    expect(d.get('r.r1.t2')).toBeDefined();
  });

  it('is bounded: the oldest entries go first', () => {
    const d = new DispatchedTasks();
    d.add(Array.from({ length: 5001 }, (_, i) => task(`r.r1.t${i}`)), 'r.round.1');
    expect(d.get('r.r1.t0')).toBeUndefined();
    expect(d.get('r.r1.t1')).toBeDefined();
    expect(d.get('r.r1.t5000')).toBeDefined();
  });

  it('names the step to wake once its last task settles, and again if a task settles twice', () => {
    const d = new DispatchedTasks();
    d.add([task('r.r1.t1'), task('r.r1.t2')], 'r.round.1');
    d.add([task('r.r2.t1')], 'r.round.2');
    expect(d.settled('r.r1.t1')).toBeUndefined();
    expect(d.allSettled('r.round.1')).toBe(false);
    expect(d.settled('r.r2.t1')).toBe('r.round.2');
    expect(d.allSettled('r.round.2')).toBe(true);
    expect(d.settled('r.r1.t2')).toBe('r.round.1');
    expect(d.settled('r.r1.t1')).toBe('r.round.1');
    expect(d.settled('elsewhere.r1.t1')).toBeUndefined();
  });

  it('holds a dispatch until its step\'s tasks settle, or until the time is up', async () => {
    const d = new DispatchedTasks();
    d.add([task('r.r1.t1'), task('r.r1.t2')], 'r.round.1');
    let released = false;
    const held = d.settledOrAfter('r.round.1', 60_000).then(() => (released = true));
    expect(d.settled('r.r1.t1')).toBeUndefined();
    await new Promise((r) => setTimeout(r, 5));
    expect(released).toBe(false);
    // The held dispatch wakes the step once it has written it: the settling task names none.
    expect(d.settled('r.r1.t2')).toBeUndefined();
    await held;
    expect(released).toBe(true);
    await d.settledOrAfter('r.round.1', 60_000);

    d.add([task('r.r2.t1')], 'r.round.2');
    const t0 = performance.now();
    await d.settledOrAfter('r.round.2', 20);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(15);
    expect(d.allSettled('r.round.2')).toBe(false);
  });
});
