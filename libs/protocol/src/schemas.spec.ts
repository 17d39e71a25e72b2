import { describe, expect, it } from 'vitest';
import { DecisionSchema } from './decision';
import { RunEventSchema } from './events';
import { FindingSchema } from './finding';
import { HumanDecisionSchema } from './judge';
import { CoordinatorStepSchema } from './queues';
import { ReportParagraphSchema } from './report';
import { SubagentTaskSchema } from './task';
import { TaskResultSchema } from './task-result';

const context = { objective: 'find x', topic: 'x', scope: { include: ['x'], exclude: [] }, outputFormat: 'f', sourceGuidance: 'g', excerpts: [] };
const search = { kind: 'search', taskId: 'run.r1.t1', runId: 'run', round: 1, engine: 'corpus', corpus: 'sotu', context, subtopicId: 's1', query: 'x', maxFindings: 5, knownSourceIds: [] };
const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, webSearchRequests: 0, webFetchRequests: 0, costUsd: 0 };
const finding = { id: 'p1#a', claim: 'c', sourceId: 'p1', quote: 'q', subtopicId: 's1' };

describe('subagent tasks', () => {
  it('accept a search task and a synthesize task, told apart by kind', () => {
    expect(SubagentTaskSchema.parse(search).kind).toBe('search');
    const synth = { kind: 'synthesize', taskId: 'run.write', runId: 'run', round: 1, engine: 'corpus', context, sections: [], sources: [], maxCitations: 25 };
    expect(SubagentTaskSchema.parse(synth).kind).toBe('synthesize');
  });
  it.each([
    ['an unknown kind', { ...search, kind: 'browse' }],
    ['a missing context', { ...search, context: undefined }],
    ['an extra field (no shared memory rides along)', { ...search, memory: {} }],
    ['an extra context field', { ...search, context: { ...context, otherRun: 'x' } }],
    ['a task id with a colon', { ...search, taskId: 'a:b' }],
    ['a corpus path', { ...search, corpus: '../etc/passwd' }],
  ])('reject %s', (_what, task) => {
    expect(SubagentTaskSchema.safeParse(task).success).toBe(false);
  });
});

describe('task results and findings', () => {
  it('accept a search result whose findings carry a source id and a verbatim quote', () => {
    const r = { kind: 'search', taskId: 't', usage, stats: {}, findings: [finding], sources: [{ id: 'p1', kind: 'passage', title: 'T', text: 'q and more' }] };
    expect(TaskResultSchema.parse(r).kind).toBe('search');
  });
  it('reject a finding without a quote, and a result with a non-numeric stat', () => {
    expect(FindingSchema.safeParse({ ...finding, quote: '' }).success).toBe(false);
    expect(TaskResultSchema.safeParse({ kind: 'search', taskId: 't', usage, stats: { x: 'y' }, findings: [], sources: [] }).success).toBe(false);
  });
  it("carry a web source's date as the search engine gave it, bounded, never empty", () => {
    const source = (published: string) => ({ kind: 'search', taskId: 't', usage, stats: {}, findings: [], sources: [{ id: 'web-1', kind: 'web', title: 'T', url: 'https://a.org', published, text: 'x' }] });
    expect(TaskResultSchema.parse(source('1 week ago')).sources[0]!.published).toBe('1 week ago');
    expect(TaskResultSchema.safeParse(source('')).success).toBe(false);
    expect(TaskResultSchema.safeParse(source('x'.repeat(101))).success).toBe(false);
  });
});

describe('report paragraphs', () => {
  it('cite sources, or sentence by sentence, where a sentence of analysis cites none', () => {
    expect(ReportParagraphSchema.safeParse({ text: 'claim', citations: [{ sourceId: 'p1' }] }).success).toBe(true);
    const sentences = [{ text: 'A fact. ', citations: [{ sourceId: 'p1', quote: 'fact' }] }, { text: 'What it means.', citations: [] }];
    expect(ReportParagraphSchema.safeParse({ text: 'A fact. What it means.', citations: [{ sourceId: 'p1', quote: 'fact' }], sentences }).success).toBe(true);
    expect(ReportParagraphSchema.safeParse({ text: 'x', citations: [], sentences: [{ text: '', citations: [] }] }).success).toBe(false);
  });
});

describe('run events and decisions', () => {
  const decision = { runId: 'r', ts: '2026-01-01T00:00:00.000Z', decisionType: 'judge', level: 'L0', confidence: 0.9, conclusion: 'stop', signals: { novelty: 0.1, flags: ['a'] } };
  it('accept each event type in the union', () => {
    expect(RunEventSchema.parse({ type: 'decision', runId: 'r', ts: decision.ts, decision }).type).toBe('decision');
    expect(RunEventSchema.parse({ type: 'run.finished', runId: 'r', ts: decision.ts, status: 'done' }).type).toBe('run.finished');
  });
  it('reject an unknown event type, a confidence above 1 and an unknown level', () => {
    expect(RunEventSchema.safeParse({ type: 'gossip', runId: 'r', ts: decision.ts }).success).toBe(false);
    expect(DecisionSchema.safeParse({ ...decision, confidence: 1.5 }).success).toBe(false);
    expect(DecisionSchema.safeParse({ ...decision, level: 'L9' }).success).toBe(false);
  });
});

describe('coordinator steps and human decisions', () => {
  it('accept each step and reject a round without its number', () => {
    expect(CoordinatorStepSchema.parse({ step: 'plan', runId: 'r' }).step).toBe('plan');
    expect(CoordinatorStepSchema.parse({ step: 'resume', runId: 'r', round: 2, action: 'stop' }).step).toBe('resume');
    expect(CoordinatorStepSchema.safeParse({ step: 'round', runId: 'r' }).success).toBe(false);
  });
  it('take continue or stop, with a budget that may only hold positive integers', () => {
    expect(HumanDecisionSchema.parse({ action: 'continue', extraBudget: { maxTasks: 3 } }).action).toBe('continue');
    expect(HumanDecisionSchema.safeParse({ action: 'maybe' }).success).toBe(false);
    expect(HumanDecisionSchema.safeParse({ action: 'continue', extraBudget: { maxTasks: -3 } }).success).toBe(false);
  });
});
