import type { StoredRunEvent } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import { applyEvent, emptyRun, taskStateOfVerdict } from './run-state.js';

const runId = '00000000-0000-4000-8000-000000000001';
const ts = '2026-01-01T00:00:00.000Z';
let seq = 0;
const ev = (e: Record<string, unknown>): StoredRunEvent => ({ runId, ts, id: `1-${seq++}`, ...e }) as StoredRunEvent;
const verdict = (taskId: string, v: string, kept: number, dropped: number) =>
  ev({ type: 'decision', decision: { runId, ts, decisionType: 'result-verdict', level: 'L0', confidence: 0.9, conclusion: `${v}: x`, signals: { taskId, verdict: v, kept, dropped } } });

describe('the live view of a run', () => {
  it('reads a result verdict as pass, partial, retry or discard', () => {
    expect(taskStateOfVerdict({ verdict: 'pass', kept: 3, dropped: 0 }, '')).toBe('pass');
    expect(taskStateOfVerdict({ verdict: 'pass-partial', kept: 2, dropped: 1 }, '')).toBe('partial');
    expect(taskStateOfVerdict({}, 'pass-partial: 2 of 3 finding(s) kept')).toBe('partial');
    expect(taskStateOfVerdict({ verdict: 'retry', kept: 0, dropped: 3 }, '')).toBe('retry');
    expect(taskStateOfVerdict({ verdict: 'discard', kept: 0, dropped: 3 }, '')).toBe('discard');
    // Decisions logged before the verdict was a signal of its own still read from their conclusion.
    expect(taskStateOfVerdict({}, 'discard: nothing usable')).toBe('discard');
  });

  it('puts each task on its subtopic spoke and ring, fills it in with its verdict, and ignores a replayed event', () => {
    seq = 0;
    const run = emptyRun(runId);
    const events = [
      ev({ type: 'run.created', topic: 'T', engine: 'corpus' }),
      ev({ type: 'plan.ready', plan: { classification: 'breadth', subtopics: [{ id: 's1', title: 'One', query: 'q', facetTerms: [], excludeTerms: [], origin: 'plan' }] } }),
      ev({ type: 'round.started', round: 1, tasks: [{ taskId: 'a.r1.t0', kind: 'search', subtopicId: 's1', title: 'One' }, { taskId: 'a.r1.t1', kind: 'search', title: 'Era 1840' }] }),
      verdict('a.r1.t0', 'pass-partial', 2, 1),
      ev({ type: 'task.completed', round: 1, taskId: 'a.r1.t0', findings: 2, newSources: 2 }),
      ev({ type: 'task.failed', round: 1, taskId: 'a.r1.t1', error: 'boom' }),
      ev({ type: 'round.completed', round: 1, newFindings: 2, newSources: 2, novelty: 1, coverage: 0.5 }),
      ev({ type: 'decision', decision: { runId, ts, decisionType: 'judge', level: 'L0', confidence: 0.9, conclusion: 'stop', signals: {} } }),
      ev({ type: 'run.finished', status: 'done' }),
    ];
    for (const e of events) applyEvent(run, e);
    applyEvent(run, events[2]!);
    expect(run.spokes.map((s) => s.id)).toEqual(['s1', 'task:Era 1840']);
    expect(run.tasks.map((t) => [t.taskId, t.round, t.spokeId, t.state, t.findings])).toEqual([
      ['a.r1.t0', 1, 's1', 'partial', 2],
      ['a.r1.t1', 1, 'task:Era 1840', 'failed', undefined],
    ]);
    expect(run.rounds).toEqual([{ n: 1, completed: true, coverage: 0.5, novelty: 1, newFindings: 2 }]);
    expect(run.decisions.map((d) => d.decisionType)).toEqual(['judge']);
    expect(run.status).toBe('done');
  });
});
