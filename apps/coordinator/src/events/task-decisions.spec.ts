import { describe, expect, it } from 'vitest';
import { taskDecision } from './task-decisions';

const job = '01234567-89ab-cdef-0123-456789abcdef.r1.t0';

describe('taskDecision: decisions reported through task progress', () => {
  it('ignores ordinary progress', () => {
    expect(taskDecision(job, 1, { taskId: job, stage: 'research', message: 'researching' })).toBeUndefined();
  });

  it('logs the reported decision with its level, confidence and signals, plus the task and round', () => {
    const out = taskDecision(job, 1, {
      taskId: job,
      stage: 'decision:redaction',
      message: 'search task x: redacted 2 values (email 1, card 1)',
      decision: { decisionType: 'redaction', level: 'L0', confidence: 1, conclusion: 'search task x: redacted 2 values (email 1, card 1)', signals: { total: 2, email: 1, card: 1 } },
    })!;
    expect(out.decision).toEqual({
      decisionType: 'redaction',
      level: 'L0',
      confidence: 1,
      conclusion: 'search task x: redacted 2 values (email 1, card 1)',
      signals: { total: 2, email: 1, card: 1, taskId: job, round: 1, origin: 'subagent' },
    });
    expect(out.key).toMatch(new RegExp(`^task:${job.replace(/\./g, '\\.')}:redaction:[0-9a-f]{12}$`));
  });

  it('falls back to stage and message when only those came, and keys deterministically', () => {
    const p = { taskId: job, stage: 'decision:idle-stop', message: 'ended the loop' };
    const a = taskDecision(job, 2, p)!;
    expect(a.decision).toMatchObject({ decisionType: 'idle-stop', level: 'L0', conclusion: 'ended the loop' });
    expect(taskDecision(job, 2, p)!.key).toBe(a.key);
    expect(taskDecision(job, 2, { ...p, message: 'other' })!.key).not.toBe(a.key);
  });
});
