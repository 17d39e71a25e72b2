import type { Finding, Source, SynthesizeResult } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import { verdictOnReport, WRITER_RETRIES } from './verdict-on-report';

const sources: Source[] = [
  { id: 'p1', kind: 'passage', title: 'Dam', text: 'The Harlow Dam was completed in 1931 after six years of work.' },
  { id: 'p2', kind: 'passage', title: 'Fish', text: 'Salmon runs fell by half in the decade after the dam.' },
  { id: 'p3', kind: 'passage', title: 'Unrelated', text: 'A passage the run retrieved but no finding quotes.' },
];
const findings: Finding[] = [
  { id: 'f1', subtopicId: 's1', claim: 'The dam was completed in 1931.', sourceId: 'p1', quote: 'The Harlow Dam was completed in 1931' },
  { id: 'f2', subtopicId: 's2', claim: 'Salmon runs halved.', sourceId: 'p2', quote: 'Salmon runs fell by half' },
] as Finding[];
const draft = (p: Partial<SynthesizeResult> = {}): SynthesizeResult =>
  ({
    kind: 'synthesize',
    taskId: 'r.write',
    title: 'Report',
    summary: 'The dam changed the river.',
    summaryCitations: [{ sourceId: 'p1', quote: 'completed in 1931' }],
    sections: [
      { title: 'Dam', paragraphs: [{ text: 'Completed in 1931.', citations: [{ sourceId: 'p1', quote: 'completed in 1931' }] }] },
      { title: 'Fish', paragraphs: [{ text: 'Salmon halved.', citations: [{ sourceId: 'p2' }] }] },
    ],
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, webSearchRequests: 0, webFetchRequests: 0, costUsd: 0 },
    ...p,
  }) as SynthesizeResult;
const ledger = { findings, sources };

describe('verdictOnReport', () => {
  it('passes a draft whose every paragraph and summary claim cites a finding of the ledger', () => {
    expect(verdictOnReport(draft(), ledger, 0)).toEqual({ verdict: 'pass', issues: [] });
  });
  it.each([
    ['a citation outside the ledger', draft({ sections: [{ title: 'X', paragraphs: [{ text: 't', citations: [{ sourceId: 'web-invented' }, { sourceId: 'p1' }] }] }] }), /not in the ledger/],
    ['a paragraph citing no finding', draft({ sections: [{ title: 'X', paragraphs: [{ text: 't', citations: [{ sourceId: 'p3' }] }] }] }), /cites no finding/],
    ['a quote that is not in its source', draft({ sections: [{ title: 'X', paragraphs: [{ text: 't', citations: [{ sourceId: 'p1', quote: 'built in 1950' }] }] }] }), /cites no finding/],
    ['a summary claim no finding backs', draft({ summaryCitations: [{ sourceId: 'p3' }] }), /summary citation 1: no finding backs it/],
    ['no paragraph at all', draft({ sections: [] }), /no paragraph/],
  ])('retries %s once with a correction, then discards', (_name, bad, issue) => {
    const first = verdictOnReport(bad, ledger, 0);
    expect(first.verdict).toBe('retry');
    expect(first.issues.join('\n')).toMatch(issue);
    expect(first.correction).toMatch(issue);
    const second = verdictOnReport(bad, ledger, WRITER_RETRIES);
    expect(second.verdict).toBe('discard');
    expect(second.correction).toBeUndefined();
  });
  it('passes a draft without a paragraph that says the sources do not answer the question', () => {
    const unanswered = draft({ summary: 'The corpus does not answer this: no passage of it mentions “bitcoin”.', summaryCitations: [], sections: [], unanswered: true });
    expect(verdictOnReport(unanswered, ledger, 0)).toEqual({ verdict: 'pass', issues: [] });
  });
});
