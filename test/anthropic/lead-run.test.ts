/**
 * Whole Claude runs where the lead decides (issue 43): the English rules only advise the class, a straightforward
 * question still gets a report the lead wrote, opening with its answer and cited, a question in French gets a French
 * report whose writer was told the language, and every request states today's date.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM_PROMPTS } from '../../libs/claude-engine/src/prompts';
import { FakeMessagesApi, type FakeHandler, type FakeMessageReply, type FakeReply } from '../support/fake-messages-api';
import { researchScript } from '../support/fake-research-script';
import { type Stack, startStack } from '../support/stack';
import { recording, transcriptMarkdown } from '../support/transcript';

const LEAD = 'claude-opus-5-5';
const today = new Date().toISOString().slice(0, 10);

/** The script's planner, its plan amended as the lead would decide it. */
const planner =
  (base: FakeHandler, amend: Record<string, unknown>): FakeHandler =>
  async (req) => {
    const r = (await base(req)) as FakeMessageReply;
    const value = { ...JSON.parse(r.content[0].text), ...amend };
    return { ...r, content: [{ ...r.content[0], text: JSON.stringify(value) }] };
  };

describe('the lead decides the class and the form, and writes every report', () => {
  let api: FakeMessagesApi;
  let stack: Stack;

  beforeAll(async () => {
    api = await FakeMessagesApi.start();
    stack = await startStack('lead-run', { workers: 1, env: { ENGINE: 'anthropic', CLAUDE_DEFAULT_CORPUS: 'kestrel', ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: api.baseURL, ANTHROPIC_MODEL: LEAD, WEB_SEARCH: 'off' } });
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
    await api?.close();
  });

  it('a French question the rules read as breadth: the lead plans it straightforward, and writes a cited French answer', async () => {
    api.reset();
    const script = researchScript({ rounds: 1, subtopics: 1 });
    const replies = new Map<number, FakeReply>();
    api.scriptByRole(recording({ ...script, planner: planner(script['planner'] as FakeHandler, { classification: 'straightforward', answerForm: 'direct-answer', language: 'fr' }) }, replies));
    const topic = 'Quand le barrage de Harlow sur la rivière Kestrel a-t-il été achevé ?';
    const { id } = await stack.client.submit({ topic });
    const events = await stack.follow(id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
    const run = await stack.client.run(id);
    expect(run.plan?.classification).toBe('straightforward');
    expect(run.plan?.language).toBe('fr');

    // The lead wrote it, told the language, and every request stated the date.
    const writer = api.accepted.filter((r) => r.role === 'writer');
    expect(writer.length).toBe(1);
    expect(writer[0]!.body.model).toBe(LEAD);
    expect(JSON.stringify(writer[0]!.body.messages)).toContain('Write the whole report in French (fr)');
    for (const r of api.accepted) expect(JSON.stringify(r.body.system), `${r.role} #${r.index}`).toContain(`Today's date is ${today}.`);

    const report = await stack.client.report(id);
    expect(report.language).toBe('fr');
    expect(report.summaryCitations?.length).toBeGreaterThan(0);
    const md = await stack.client.reportMarkdown(id);
    expect(md).toContain('## Couverture');
    expect(md.split('\n')[2]).toMatch(/\[1\]/);

    // docs/claude-transcript.md: every role's prompt, and this run's transcript.
    if (process.env['ORRERY_WRITE_TRANSCRIPT'] === '1') {
      const prompts = Object.entries(SYSTEM_PROMPTS).map(([role, p]) => `### ${role}\n\n~~~~\n${p}\n~~~~\n`);
      const doc = [
        transcriptMarkdown(`One Claude run against the fake: "${topic}"`, api, replies),
        '# The system prompt of every role',
        '',
        "Each request also ends its system prompt with today's date (\"Today's date is YYYY-MM-DD.\").",
        '',
        ...prompts,
        '# The report',
        '',
        '~~~~',
        md,
        '~~~~',
        '',
      ].join('\n');
      writeFileSync(resolve(__dirname, '../../docs/claude-transcript.md'), doc);
    }
  });

  it('the reference design’s depth-first example, which the rules read as straightforward, is planned as the lead says', async () => {
    api.reset();
    const script = researchScript({ rounds: 1, subtopics: 3 });
    api.scriptByRole({ ...script, planner: planner(script['planner'] as FakeHandler, { classification: 'depth', answerForm: 'analysis', language: 'en' }) });
    const { id } = await stack.client.submit({ topic: 'What really caused the 2008 financial crisis?' });
    const events = await stack.follow(id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
    const run = await stack.client.run(id);
    expect(run.plan?.classification).toBe('depth');
    expect(run.counters.tasksDispatched).toBeGreaterThan(2);
    const plannerReq = api.accepted.find((r) => r.role === 'planner')!;
    expect(JSON.stringify(plannerReq.body.messages)).toContain('Advice from rules that read the question');
  });
});
