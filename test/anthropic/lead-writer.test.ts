/**
 * The lead writes the report (issue 43): on the lead model at high effort, from the question, its plan's reasoning,
 * the researchers' condensed reports and each source's title, site, date and URL; in the question's language and the form
 * the lead chose; then a citer attaches citations sentence by sentence, the summary's too, and the lead's analysis
 * paragraphs stand beside the cited ones. Against the fake Messages API, whose writer and citer read their prompts.
 */
import type { Run, SynthesizeTask, WriterBrief } from '@orrery/protocol';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { assembleReport } from '../../apps/coordinator/src/report/report-assembler';
import { reportToMarkdown } from '../../apps/coordinator/src/report/report-markdown';
import { AnthropicSubagentEngine } from '../../libs/claude-engine/src/subagent-engine';
import { fakeCiter, fakeLeadWriter } from '../support/fake-lead-writer';
import { type FakeMessagesApi, reply } from '../support/fake-messages-api';
import { synthesizeTask, useFakeMessagesApi } from './fixtures';

let api: FakeMessagesApi;
useFakeMessagesApi((started) => (api = started));

const LEAD = 'claude-opus-5-5';
const SPOKE = 'claude-sonnet-5-5';
const today = new Date().toISOString().slice(0, 10);

const SOURCES = [
  { id: 'web-aaa', kind: 'web' as const, title: 'Rapport annuel sur l’éolien 2025', url: 'https://www.energie.gouv.example/eolien-2025', published: 'March 3, 2026', text: 'Les éoliennes ont fourni 14 % de l’électricité en 2025. La capacité installée a doublé depuis 2015.' },
  { id: 'web-bbb', kind: 'web' as const, title: 'Bilan solaire', url: 'https://solaire.example.org/bilan', text: 'Le solaire a fourni 6 % de l’électricité en 2025, contre 2 % en 2015.' },
];

function leadTask(brief: Partial<WriterBrief> = {}): SynthesizeTask {
  return synthesizeTask({
    context: { objective: 'Écrire le rapport', topic: 'Comparer l’éolien et le solaire en France', scope: { include: [], exclude: [] }, outputFormat: '', sourceGuidance: '', excerpts: [] },
    sections: [
      { subtopicId: 'eolien', title: 'Éolien', findings: [{ id: 'f1', claim: 'Les éoliennes ont fourni 14 % de l’électricité en 2025', sourceId: 'web-aaa', quote: 'Les éoliennes ont fourni 14 % de l’électricité en 2025', subtopicId: 'eolien' }] },
      { subtopicId: 'solaire', title: 'Solaire', findings: [{ id: 'f2', claim: 'Le solaire a fourni 6 % de l’électricité en 2025, contre 2 % en 2015', sourceId: 'web-bbb', quote: 'Le solaire a fourni 6 % de l’électricité en 2025, contre 2 % en 2015', subtopicId: 'solaire' }] },
    ],
    sources: SOURCES,
    brief: {
      classification: 'breadth',
      answerForm: 'comparison-table',
      language: 'fr',
      rationale: 'The user wants the two sources of power side by side.',
      objectives: [
        { subtopicId: 'eolien', title: 'Éolien', objective: 'Part de l’éolien' },
        { subtopicId: 'solaire', title: 'Solaire', objective: 'Part du solaire' },
      ],
      reports: [{ taskId: 'r.1', subtopicId: 'eolien', report: { text: 'The ministry report is the primary source.', gaps: ['no 2026 figures yet'], conflicts: ['an industry blog claims 18 %'] } }],
      ...brief,
    },
  });
}

const run = { id: 'run-1', topic: 'Comparer l’éolien et le solaire en France', engine: 'anthropic', plan: { classification: 'breadth', subtopics: [{ id: 'wind', title: 'Éolien', query: 'éolien en France', facetTerms: [], excludeTerms: [], origin: 'plan' }] }, evidence: { wind: 1 }, rounds: [], counters: { tasksDispatched: 2 }, usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, webSearchRequests: 0, webFetchRequests: 0, costUsd: 0 } } as unknown as Run;

describe('the lead writes the report', () => {
  it('on the lead model at high effort, told the date, the language, its plan, the reports and each source’s title, site, date and URL', async () => {
    api.scriptByRole({ writer: fakeLeadWriter, citer: fakeCiter });
    const engine = new AnthropicSubagentEngine({ client: api.client(), model: LEAD, subagentModel: SPOKE, webSearch: { enabled: false } });
    await engine.synthesize(leadTask(), () => {});
    const writer = api.accepted.find((r) => r.role === 'writer')!;
    expect(writer.body.model).toBe(LEAD);
    expect(writer.body.output_config.effort).toBe('high');
    const system = JSON.stringify(writer.body.system);
    expect(system).toContain(`Today's date is ${today}.`);
    expect(system).toContain('primary sources');
    const user = JSON.stringify(writer.body.messages);
    for (const s of ['Write the whole report in French (fr)', 'comparison-table', 'The user wants the two sources of power side by side.', 'Rapport annuel sur l’éolien 2025', 'energie.gouv.example', 'https://www.energie.gouv.example/eolien-2025', 'The ministry report is the primary source.', 'no 2026 figures yet', 'an industry blog claims 18 %']) {
      expect(user, s).toContain(s);
    }
    // A dated page shows its date; an undated one none, and the writer is told to date what it states.
    expect(user).toContain('energie.gouv.example — dated March 3, 2026 — https://www.energie.gouv.example/eolien-2025');
    expect(user).toContain('solaire.example.org — https://solaire.example.org/bilan');
    expect(system).toContain('Date what you state where its source is dated');
    // The citer is told the date too, and asked without an output format it cannot have.
    const citer = api.accepted.find((r) => r.role === 'citer')!;
    expect(JSON.stringify(citer.body.system)).toContain(`Today's date is ${today}.`);
  });

  it('cites sentence by sentence, the summary included, keeps the analysis, and holds a table in the question’s language', async () => {
    api.scriptByRole({ writer: fakeLeadWriter, citer: fakeCiter });
    const engine = new AnthropicSubagentEngine({ client: api.client(), model: LEAD, subagentModel: SPOKE, webSearch: { enabled: false } });
    const written = await engine.synthesize(leadTask(), () => {});
    expect(written.language).toBe('fr');
    expect(written.summarySentences?.[0]?.citations[0]).toEqual({ sourceId: 'web-aaa', quote: 'Les éoliennes ont fourni 14 % de l’électricité en 2025' });

    const report = assembleReport(run, written, SOURCES);
    expect(report.summaryCitations?.length).toBeGreaterThan(0);
    const paragraphs = report.sections.flatMap((s) => s.paragraphs);
    // A paragraph of the lead's own analysis, citing nothing, stands beside the cited one of its section.
    expect(paragraphs.some((p) => p.citations.length === 0 && p.sentences?.length)).toBe(true);
    const md = reportToMarkdown(report);
    const html = new MarkdownIt().render(md);
    expect(html).toContain('<table>');
    expect(md).toContain('## Couverture');
    expect(md).toMatch(/\| Éolien \| Les éoliennes ont fourni 14 % de l’électricité en 2025\. \[1\] \|/);
    // The summary's first sentence carries its own mark, right after it.
    expect(md.split('\n')[2]).toMatch(/^Les éoliennes ont fourni 14 % de l’électricité en 2025\. \[1\]/);
  });

  it('a citer that fails twice leaves the written report, cited by word overlap, and says so', async () => {
    api.scriptByRole({ writer: fakeLeadWriter, citer: [reply.rawJson('not json'), reply.rawJson('still not json')] });
    const engine = new AnthropicSubagentEngine({ client: api.client(), model: LEAD, subagentModel: SPOKE, webSearch: { enabled: false } });
    const stages: string[] = [];
    const written = await engine.synthesize(leadTask(), (u) => void stages.push(u.stage));
    expect(written.stats['fallbacks']).toBe(0);
    expect(stages).toContain('decision:fallback');
    const report = assembleReport(run, written, SOURCES);
    expect(report.summaryCitations?.[0]?.sourceId).toBe('web-aaa');
    expect(report.sections.flatMap((s) => s.paragraphs).some((p) => p.citations.some((c) => c.sourceId === 'web-bbb'))).toBe(true);
  });
});
