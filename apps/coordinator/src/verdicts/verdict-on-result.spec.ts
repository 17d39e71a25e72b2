import type { SearchResult, SearchTask } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import { filterResult } from './filter-result';
import { verdictOnResult } from './verdict-on-result';

const task: SearchTask = {
  taskId: 'run1.r1.border',
  runId: 'run1',
  round: 1,
  engine: 'corpus',
  kind: 'search',
  subtopicId: 'border',
  query: 'border security and enforcement',
  maxFindings: 10,
  knownSourceIds: [],
  context: {
    objective: 'Find what presidents said about border security',
    topic: 'immigration',
    scope: { include: ['border'], exclude: ['refugee admissions', 'visa'] },
    outputFormat: 'search result',
    sourceGuidance: 'corpus passages',
    excerpts: [],
  },
};

const TEXT = 'We will secure our borders.  We must enforce the law\nat the border, and treat immigrants with dignity.';
const source = { id: 'p1', kind: 'passage' as const, title: 'SOTU 1996', text: TEXT };
const finding = (over: Partial<SearchResult['findings'][number]> = {}) => ({
  id: 'f1',
  claim: 'The president promised to enforce the law at the border.',
  sourceId: 'p1',
  quote: 'We must enforce the law at the border',
  subtopicId: 'border',
  ...over,
});
const result = (findings: SearchResult['findings'], sources: SearchResult['sources'] = [source]): SearchResult => ({
  taskId: task.taskId,
  kind: 'search',
  usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, webSearchRequests: 0, webFetchRequests: 0, costUsd: 0 },
  stats: {},
  findings,
  sources,
});
const judge = (r: unknown, attempt = 0) => verdictOnResult({ task, result: r, topic: 'immigration', attempt });

describe('verdictOnResult', () => {
  it('passes a result whose findings check out', () => {
    const v = judge(result([finding()]));
    expect(v.verdict).toBe('pass');
    expect(v.checks.format.status).toBe('pass');
    expect(v.checks.meaning.status).toBe('pass');
    expect(v.checks.scope.status).toBe('pass');
    expect(v.correction).toBeUndefined();
  });
  it('passes an empty but valid search', () => {
    expect(judge(result([], [])).verdict).toBe('pass');
  });
  it('retries a quote that is not in its source with a concrete correction, then discards at attempt 2', () => {
    const bad = result([finding({ quote: 'We will build a wall at the border' })]);
    const first = judge(bad, 0);
    expect(first.verdict).toBe('retry');
    expect(first.checks.meaning.status).toBe('fail');
    expect(first.issues.map((i) => i.code)).toEqual(['quote-not-in-source']);
    expect(first.correction).toContain('f1');
    expect(first.correction).toContain('character for character');
    expect(judge(bad, 1).verdict).toBe('retry');
    const last = judge(bad, 2);
    expect(last.verdict).toBe('discard');
    expect(last.correction).toBeUndefined();
  });
  it('fails the format check on a schema violation or a foreign taskId', () => {
    const v = judge({ ...result([finding()]), findings: 'nope' });
    expect(v.verdict).toBe('retry');
    expect(v.checks.format.status).toBe('fail');
    expect(v.checks.meaning.status).toBe('skipped');
    expect(v.correction).toMatch(/format/);
    const other = judge({ ...result([finding()]), taskId: 'run1.r1.other' });
    expect(other.checks.format.status).toBe('fail');
    expect(other.detail).toContain('run1.r1.other');
    expect(judge(null, 2).verdict).toBe('discard');
  });
  it('rejects a finding whose source is not in the result', () => {
    const v = judge(result([finding({ sourceId: 'p9' })]));
    expect(v.issues.map((i) => i.code)).toContain('source-missing');
    expect(v.verdict).toBe('retry');
  });
  it('rejects an off-topic finding', () => {
    const text = 'The harvest of soybeans rose sharply in Iowa.';
    const v = judge(result([finding({ claim: 'Soybean harvests rose.', quote: text })], [{ ...source, text }]));
    expect(v.issues.map((i) => i.code)).toEqual(['off-topic']);
  });
  it('relates "immigrants" to the topic "immigration"', () => {
    const v = judge(result([finding({ claim: 'Newcomers deserve dignity.', quote: 'treat immigrants with dignity' })]));
    expect(v.verdict).toBe('pass');
  });
  it('checks scope: wrong subtopic and excluded terms', () => {
    expect(judge(result([finding({ subtopicId: 'refugees' })])).issues.map((i) => i.code)).toEqual(['wrong-subtopic']);
    const text = 'Refugee admissions will rise next year for immigrants fleeing war.';
    const v = judge(result([finding({ claim: 'Refugee admissions will rise.', quote: 'Refugee admissions will rise next year for immigrants' })], [{ ...source, text }]));
    expect(v.checks.scope.status).toBe('fail');
    expect(v.issues.map((i) => i.code)).toEqual(['excluded-scope']);
    expect(v.correction).toContain('scope.exclude');
  });
  it('lets an on-scope finding mention an excluded term in passing', () => {
    const text = 'At the border, visa overstays and border enforcement both matter.';
    const v = judge(result([finding({ claim: 'Border enforcement matters.', quote: 'visa overstays and border enforcement both matter' })], [{ ...source, text }]));
    expect(v.verdict).toBe('pass');
  });
});

describe('filterResult', () => {
  it('keeps good findings, drops bad ones and the sources only they cited', () => {
    const other = { id: 'p2', kind: 'passage' as const, title: 'x', text: 'Border patrol agents were hired.' };
    const r = result([finding(), finding({ id: 'f2', sourceId: 'p2', quote: 'invented words' })], [source, other]);
    const v = judge(r);
    // Nothing is re-sent for it: the good finding is kept, the failure listed.
    expect(v.verdict).toBe('pass-partial');
    expect(v.correction).toBeUndefined();
    expect(v.failures).toEqual([{ findingId: 'f2', issues: ['quote-not-in-source'] }]);
    expect(judge(r, 2).verdict).toBe('pass-partial');
    expect(v.counts).toEqual({ findings: 2, badFindings: 1 });
    const f = filterResult({ task, result: r, topic: 'immigration' });
    expect(f.result?.findings.map((x) => x.id)).toEqual(['f1']);
    expect(f.result?.sources.map((s) => s.id)).toEqual(['p1']);
    expect(f).toMatchObject({ kept: 1, dropped: 1, droppedBy: { 'quote-not-in-source': 1 }, sourcesKept: 1, sourcesDropped: 1 });
  });
  it('returns null when the format fails', () => {
    expect(filterResult({ task, result: { bad: true }, topic: 'immigration' }).result).toBeNull();
  });
});
