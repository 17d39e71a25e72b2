import { describe, expect, it } from 'vitest';
import { JobHandlers } from './job-handlers';

describe('JobHandlers', () => {
  const kinds = ['plan', 'round'] as const;

  it('hands each kind its one handler', () => {
    const handlers = new JobHandlers('q', kinds, [['round', 'R'], ['plan', 'P']]);
    expect([handlers.for('plan'), handlers.for('round')]).toEqual(['P', 'R']);
  });

  it('refuses to start on a kind with no handler, two handlers, or a handler for no kind', () => {
    expect(() => new JobHandlers('q', kinds, [['plan', 'P']])).toThrow('queue q: no handler for job kind round');
    expect(() => new JobHandlers('q', kinds, [['plan', 'P'], ['round', 'R'], ['plan', 'P2']])).toThrow('queue q: two handlers for job kind "plan"');
    expect(() => new JobHandlers('q', kinds, [['plan', 'P'], ['round', 'R'], ['rounds', 'X']])).toThrow(/"rounds", which is no job kind/);
  });
});
