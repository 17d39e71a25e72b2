import type { StoredRunEvent } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import { parseResultId, resultId } from './corpus-tools';
import { progressMessage } from './run-progress';

const at = { runId: 'r', ts: '2026-01-01T00:00:00.000Z', id: '1-0' };
const ev = (e: Record<string, unknown>) => ({ ...at, ...e }) as unknown as StoredRunEvent;

describe('progressMessage', () => {
  it('tells plan, dispatch, tasks done of the round, round figures, report and end; skips the rest', () => {
    const tasks = new Map<number, number>();
    const done = new Map<number, number>();
    const say = (e: Record<string, unknown>) => progressMessage(ev(e), tasks, done);
    expect(say({ type: 'run.created', topic: 't', engine: 'corpus' })).toBeUndefined();
    expect(say({ type: 'plan.ready', plan: { subtopics: [{}, {}, {}] } })).toBe('plan: 3 subtopics');
    expect(say({ type: 'round.started', round: 1, tasks: [{}, {}] })).toBe('round 1: 2 tasks dispatched');
    expect(say({ type: 'task.progress', round: 1, taskId: 'x', stage: 's', message: 'm' })).toBeUndefined();
    expect(say({ type: 'task.completed', round: 1, taskId: 'x', findings: 2, newSources: 1 })).toBe('round 1: task done (1/2)');
    expect(say({ type: 'task.failed', round: 1, taskId: 'y', error: 'e' })).toBe('round 1: task failed (2/2)');
    expect(say({ type: 'round.completed', round: 1, newFindings: 5, newSources: 3, novelty: 0.5, coverage: 0.875 })).toBe('round 1 done: coverage 88%, novelty 50%, 5 new findings');
    expect(say({ type: 'decision', decision: {} })).toBeUndefined();
    expect(say({ type: 'report.ready', sections: 4, citations: 9 })).toBe('report: 4 sections, 9 citations');
    // Each count in its number.
    expect(say({ type: 'plan.ready', plan: { subtopics: [{}] } })).toBe('plan: 1 subtopic');
    expect(say({ type: 'report.ready', sections: 1, citations: 1 })).toBe('report: 1 section, 1 citation');
    expect(say({ type: 'run.finished', status: 'done' })).toBe('run done');
  });
});

describe('corpus result ids', () => {
  it('name their corpus, and split at the first colon only', () => {
    expect(parseResultId(resultId('sotu', 'sotu-1912-taft-p074'), 'x')).toEqual({ corpus: 'sotu', passageId: 'sotu-1912-taft-p074' });
    expect(parseResultId('notes:a:b', 'x')).toEqual({ corpus: 'notes', passageId: 'a:b' });
    expect(parseResultId('bare-id', 'kestrel')).toEqual({ corpus: 'kestrel', passageId: 'bare-id' });
  });
});
