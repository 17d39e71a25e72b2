import { PlanSchema, SearchResultSchema, SynthesizeResultSchema, type Finding } from '@orrery/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicCoordinatorEngine } from '../../libs/claude-engine/src/coordinator-engine';
import { AnthropicSubagentEngine } from '../../libs/claude-engine/src/subagent-engine';
import { FakeMessagesApi } from '../support/fake-messages-api';
import { researchScript } from '../support/fake-research-script';
import { makePassages, searchTask, synthesizeTask } from './fixtures';

let api: FakeMessagesApi;
beforeAll(async () => {
  api = await FakeMessagesApi.start();
  api.scriptByRole(researchScript({ rounds: 2 }));
});
afterAll(async () => api.close());

describe('researchScript: every role end to end against the fake, outputs valid for the protocol', () => {
  it('plan → search (corpus and web) → judge → synthesize', async () => {
    const options = { client: api.client(), passages: makePassages() };
    const hub = new AnthropicCoordinatorEngine(options);
    const planned = await hub.plan({ runId: 'r', topic: 'wind and solar power', maxSubtopics: 5, classification: 'breadth', coverageCheck: true });
    expect(PlanSchema.parse(planned.plan).subtopics).toHaveLength(3);
    expect(planned.plan.coverage?.passed).toBe(true);

    const corpus = await new AnthropicSubagentEngine(options).search(searchTask(), () => {});
    const web = await new AnthropicSubagentEngine({ client: api.client(), webSearch: { enabled: true } }).search(searchTask({ taskId: 'run-1.r1.search.web' }), () => {});
    for (const r of [corpus, web]) {
      SearchResultSchema.parse(r);
      expect(r.findings.length).toBeGreaterThan(0);
      for (const f of r.findings) expect(r.sources.find((s) => s.id === f.sourceId)?.text).toContain(f.quote);
    }
    expect(web.findings[0]!.sourceId).toMatch(/^web-/);

    const judge = (round: number) =>
      hub.judgeVerdict({ goal: 'wind', round, lastActions: [], yield: { newFindings: 1, newSources: 1 }, stateSummary: '', signalHistory: { pivots: 0 } });
    expect((await judge(1)).signal).toBe('continue');
    expect((await judge(2)).signal).toBe('stop');

    const findings: Finding[] = [...corpus.findings, ...web.findings];
    const report = await new AnthropicSubagentEngine(options).synthesize(
      synthesizeTask({ sections: [{ subtopicId: 'wind', title: 'Wind', findings }], maxCitations: 2 }),
      () => {},
    );
    SynthesizeResultSchema.parse(report);
    const cited = new Set(report.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations.map((c) => c.sourceId))));
    expect(cited.size).toBeGreaterThan(0);
    expect(cited.size).toBeLessThanOrEqual(2);
    expect(api.rejected).toEqual([]);
  });
});
