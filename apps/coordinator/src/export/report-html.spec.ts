import type { Report } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import { printableReport } from './printable-report';
import { reportToHtml } from './report-html';

const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, webSearchRequests: 0, webFetchRequests: 0, costUsd: 0 };

describe('the printable report of an unanswered question', () => {
  // The report says the corpus does not answer, cites nothing and shows no coverage, after one round of one task.
  const report: Report = {
    runId: 'r',
    title: 'Cryptocurrency',
    topic: 'What have presidents said about cryptocurrency?',
    summary: 'The corpus does not answer this: no passage of it mentions “cryptocurrency”.',
    sections: [],
    sources: [],
    coverage: { subtopics: [], gaps: [] },
    metadata: { engine: 'corpus', corpus: 'sotu', rounds: 1, tasks: 1, usage, generatedAt: new Date(0).toISOString(), droppedCitations: 0 },
  };
  const html = reportToHtml(printableReport(report));

  it('heads no empty notes or sources list', () => {
    expect(html).not.toMatch(/<h2>(Notes|Sources)<\/h2>/);
    expect(html).toContain('does not answer');
  });

  it('says each count in the number it needs', () => {
    expect(html).toContain('1 round, 1 task;');
  });
});
