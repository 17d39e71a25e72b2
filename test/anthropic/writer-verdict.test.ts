/**
 * Every result gets a verdict, the writer's too (issue 18): a Claude run whose writer drafts a report that cites no
 * finding is checked by the hub, the writer is sent the draft back once with the correction, and the corrected draft
 * is used; a writer that fails twice is discarded and the report is built from the findings alone.
 */
import type { Decision } from '@orrery/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeMessagesApi, reply, type FakeHandler } from '../support/fake-messages-api';
import { researchScript } from '../support/fake-research-script';
import { type Stack, startStack } from '../support/stack';

const CORRECTION = "Correction from the previous draft's check";
// The lead's draft says nothing any finding says: the citer finds nothing to cite in it.
const invented = reply.json({ title: 'Report', summary: 'A summary.', sections: [{ title: 'Invented', subtopicId: '', paragraphs: ['Something no finding says.'] }], headings: { sources: 'Sources', coverage: 'Coverage', gaps: 'Gaps that remain' } });

describe("the writer's draft gets a verdict", () => {
  let api: FakeMessagesApi;
  let stack: Stack;
  const decisionsOf = async (id: string): Promise<Decision[]> => (await fetch(`${stack.coordinator.url}/v1/research/${id}/decisions`)).json() as Promise<Decision[]>;

  beforeAll(async () => {
    api = await FakeMessagesApi.start();
    stack = await startStack('writer-verdict', { workers: 1, env: { ENGINE: 'anthropic', CLAUDE_DEFAULT_CORPUS: 'kestrel', ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: api.baseURL, WEB_SEARCH: 'off' }, workerEnv: { SUBAGENT_CONCURRENCY: '2' } });
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
    await api?.close();
  });

  const runWith = async (writer: FakeHandler) => {
    api.reset();
    const script = researchScript({ rounds: 1, subtopics: 2 });
    api.scriptByRole({ ...script, writer: (req) => writer(req) ?? (script['writer'] as FakeHandler)(req) });
    const { id } = await stack.client.submit({ topic: 'How has the Kestrel River changed: floods, dams and fisheries?' });
    const events = await stack.follow(id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
    const verdicts = (await decisionsOf(id)).filter((d) => d.decisionType === 'writer-verdict').map((d) => `${d.signals['attempt']}:${d.signals['verdict']}`);
    return { id, verdicts, writerRequests: api.accepted.filter((r) => r.role === 'writer') };
  };

  it('sends a draft that cites no finding back once with the correction, and uses the corrected draft', async () => {
    const script = researchScript({ rounds: 1, subtopics: 2 });
    const { id, verdicts, writerRequests } = await runWith((req) => (JSON.stringify(req.messages).includes(CORRECTION) ? (script['writer'] as FakeHandler)(req) : invented));
    expect(verdicts).toEqual(['0:retry', '1:pass']);
    expect(writerRequests.some((r) => JSON.stringify(r.body.messages).includes(CORRECTION))).toBe(true);
    const report = await stack.client.report(id);
    expect(report.sections.flatMap((s) => s.paragraphs).length).toBeGreaterThan(0);
    expect(report.title).toContain('Kestrel River');
    expect((await stack.jobs('subagents')).some((j) => j.id === `${id}.write.a1`)).toBe(true);
  });

  it('discards a writer that fails twice: the report is built from the findings alone', async () => {
    const { id, verdicts } = await runWith(() => invented);
    expect(verdicts).toEqual(['0:retry', '1:discard']);
    const report = await stack.client.report(id);
    const citations = report.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations));
    expect(citations.length).toBeGreaterThan(0);
    for (const c of citations) expect(report.sources.map((s) => s.id)).toContain(c.sourceId);
    expect(report.sections.some((s) => s.title === 'Invented')).toBe(false);
  });
});
