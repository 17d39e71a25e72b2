import type { Finding, Run, Source } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import { emptyUsage } from '@orrery/engine';
import { openBudgetAccount } from '../budget';
import { assembleReport, citationHolds, directAnswer } from './report-assembler';
import { reportToMarkdown } from './report-markdown';

function run(topic: string): Run {
  const now = new Date().toISOString();
  const budget = { maxTokens: 1000, maxTasks: 5, maxRounds: 1, maxWallSeconds: 60 };
  return {
    id: 'r1',
    topic,
    engine: 'corpus',
    status: 'synthesizing',
    stateVersion: 1,
    createdAt: now,
    updatedAt: now,
    coverageCheck: true,
    budget,
    plan: { classification: 'straightforward', subtopics: [{ id: 'answer', title: topic, query: topic, facetTerms: [], excludeTerms: [], origin: 'plan' }] },
    rounds: [],
    evidence: { answer: 3 },
    counters: { tasksDispatched: 1, tasksCompleted: 1, tasksFailed: 0, findings: 3, sources: 3 },
    usage: emptyUsage(),
    errors: [],
    cancelRequested: false,
    judgeEnabled: false,
    signalHistory: { lastNonContinue: null, lastPivotRound: null, pivotCount: 0 },
    budgetLedger: openBudgetAccount(budget, Date.parse(now)),
  };
}

const source = (id: string, title: string, text: string): Source => ({ id, kind: 'passage', title, text });
const finding = (id: string, sourceId: string, claim: string, quote: string, score: number): Finding => ({
  id,
  claim,
  sourceId,
  quote,
  subtopicId: 'answer',
  relevance: { score, topicTerms: [], facetTerms: [] },
});

describe('directAnswer', () => {
  // The ledger hands findings back in id order: here the answer's id sorts last.
  const sources = [
    source('sotu-1934-roosevelt-p001', '1934, Franklin D. Roosevelt', 'I come before you at the opening of the Regular Session.'),
    source('sotu-1935-roosevelt-p001', '1935, Franklin D. Roosevelt', 'The Constitution wisely provides that the Chief Executive shall report.'),
    source('sotu-1942-roosevelt-p010', '1942, Franklin D. Roosevelt', 'We are fighting to cleanse the world of ancient evils.'),
  ];
  const findings = [
    finding('a~1', 'sotu-1942-roosevelt-p010', 'We are fighting to cleanse the world of ancient evils.', 'We are fighting to cleanse the world of ancient evils.', 0.2),
    finding('b~1', 'sotu-1935-roosevelt-p001', 'In 1935, Franklin D. Roosevelt said: “The Constitution wisely provides…”', 'The Constitution wisely provides that the Chief Executive shall report.', 0.5),
    finding('z~1', 'sotu-1934-roosevelt-p001', '1934: Franklin D. Roosevelt’s first State of the Union address in the corpus is that of 1934.', 'I come before you at the opening of the Regular Session.', 1),
  ];

  it('leads with the answer, citing the passage that shows it, and numbers that passage first', () => {
    const r = run('When did Franklin D. Roosevelt first deliver a State of the Union address?');
    const report = assembleReport(r, directAnswer(r, findings, 25), sources);
    expect(report.summary).toMatch(/^1934: /);
    expect(report.summaryCitations).toEqual([{ sourceId: 'sotu-1934-roosevelt-p001', quote: 'I come before you at the opening of the Regular Session.' }]);
    expect(report.sources[0]!.id).toBe('sotu-1934-roosevelt-p001');
    expect(report.sections.map((s) => s.title)).toEqual(['Evidence']);
    expect(report.sections[0]!.paragraphs.map((p) => p.citations[0]!.sourceId)).toEqual(['sotu-1935-roosevelt-p001', 'sotu-1942-roosevelt-p010']);
    const md = reportToMarkdown(report);
    expect(md.split('\n')[2]).toBe('1934: Franklin D. Roosevelt’s first State of the Union address in the corpus is that of 1934. [1]');
  });

  it('quotes the answer\'s own passage as the evidence when the search found nothing else', () => {
    const r = run('When did Franklin D. Roosevelt first deliver a State of the Union address?');
    const report = assembleReport(r, directAnswer(r, [findings[2]!], 25), sources);
    expect(report.sections[0]!.paragraphs).toEqual([{ text: 'I come before you at the opening of the Regular Session.', citations: [{ sourceId: 'sotu-1934-roosevelt-p001', quote: 'I come before you at the opening of the Regular Session.' }] }]);
  });

  it('drops a lede citation whose quote is not in its source', () => {
    const r = run('When did Franklin D. Roosevelt first deliver a State of the Union address?');
    const forged = findings.map((f) => (f.id === 'z~1' ? { ...f, quote: 'I never said this.' } : f));
    const report = assembleReport(r, directAnswer(r, forged, 25), sources);
    expect(report.summaryCitations).toBeUndefined();
    expect(report.metadata.droppedCitations).toBe(1);
  });
});

describe("the report's citation check", () => {
  const text = 'We must enforce the law at the border.';
  const ledger = new Map([['s1', source('s1', '2019, Donald J. Trump', text)]]);

  it('keeps a quote that occurs verbatim, whatever its whitespace', () => {
    expect(citationHolds(ledger, 's1', 'enforce the  law\nat the border')).toBe(true);
  });

  it('drops a quote whose case differs from the source: a quote is verbatim', () => {
    expect(citationHolds(ledger, 's1', 'We must enforce the Law at the border')).toBe(false);
    const r = run('What was said about the border?');
    const written = {
      ...directAnswer(r, [], 25),
      sections: [{ title: 'Border', subtopicId: 'answer', paragraphs: [{ text: 'A claim.', citations: [{ sourceId: 's1', quote: 'WE MUST ENFORCE THE LAW' }] }] }],
    };
    const report = assembleReport(r, written, [...ledger.values()]);
    expect(report.sections.flatMap((s) => s.paragraphs)).toEqual([]);
  });
});

describe('a report that says its sources do not answer', () => {
  it('shows no coverage: its subtopics found nothing that answers', () => {
    const r = run('What have presidents said about cryptocurrency?');
    const written = { ...directAnswer(r, [], 25), summary: 'The corpus does not answer this: no passage of it mentions “cryptocurrency”.', sections: [], unanswered: true as const };
    const report = assembleReport(r, written, []);
    expect(report.coverage).toEqual({ subtopics: [], gaps: [] });
    const md = reportToMarkdown(report);
    expect(md).not.toMatch(/Coverage|subtopic/);
    expect(md.split('\n')[2]).toBe('The corpus does not answer this: no passage of it mentions “cryptocurrency”.');
  });
});

describe('the gaps a report lists', () => {
  it('say each subtopic\'s count of findings in its number', () => {
    const r = { ...run('What did Eisenhower say about the moon?'), evidence: { answer: 1 } };
    const report = assembleReport(r, directAnswer(r, [], 25), []);
    expect(report.coverage.gaps).toEqual(['What did Eisenhower say about the moon? (thin: 1 finding)']);
  });
});
