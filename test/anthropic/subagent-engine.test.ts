import type { SearchResult, SearchTask, SynthesizeResult } from '@orrery/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicSubagentEngine } from '../../libs/claude-engine/src/subagent-engine';
import { webSourceId } from '../../libs/claude-engine/src/sources';
import { type AnthropicEngineOptions } from '../../libs/claude-engine/src/options';
import { FINAL_REPORT_TEXT, NUDGE_TEXT } from '../../libs/claude-engine/src/prompts';
import type { SubagentEngine } from '../../libs/engine/src/engine';
import { fakePage, type FakeHandler, FakeMessagesApi, reply, type FakeRequest } from '../support/fake-messages-api';
import { useFakeMessagesApi, lastMessage, makePassages, recorder, searchTask, synthesizeTask } from './fixtures';

let api: FakeMessagesApi;
useFakeMessagesApi((started) => (api = started));

/** A stand-in for the corpus engine as fallback. */
function fakeFallback(): SubagentEngine & { calls: string[] } {
  const calls: string[] = [];
  return {
    name: 'corpus',
    calls,
    async search(task: SearchTask): Promise<SearchResult> {
      calls.push(`search:${task.taskId}`);
      return {
        kind: 'search',
        taskId: task.taskId,
        findings: [{ id: 'fb1', claim: 'from corpus', sourceId: 'sotu-1990-p3', quote: 'Wind turbines', subtopicId: task.subtopicId }],
        sources: [{ id: 'sotu-1990-p3', kind: 'passage', title: 't', text: 'Wind turbines now supply power' }],
        usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, webSearchRequests: 0, webFetchRequests: 0, costUsd: 0 },
        stats: { corpusHits: 1 },
      };
    },
    async synthesize(task): Promise<SynthesizeResult> {
      calls.push(`synthesize:${task.taskId}`);
      return { kind: 'synthesize', taskId: task.taskId, title: 'fallback report', summary: '', sections: [], usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, webSearchRequests: 0, webFetchRequests: 0, costUsd: 0 }, stats: {} };
    },
  };
}

function engine(over: Partial<AnthropicEngineOptions> = {}) {
  return new AnthropicSubagentEngine({
    client: api.client(),
    subagentModel: 'claude-sonnet-5-5',
    webSearch: { enabled: false },
    passages: makePassages(),
    maxContinuations: 3,
    maxIterations: 10,
    ...over,
  });
}

/** Extractor that quotes the first sentence fragment of every source it was given. */
const quotingExtractor = (req: FakeRequest) => {
  const text = req.lastUserText;
  const findings = [...text.matchAll(/<untrusted_source id="([^"]+)"[^>]*>\n([^\n]+)/g)].map((m) => ({
    claim: `claim from ${m[1]}`,
    sourceId: m[1]!,
    quote: m[2]!.slice(0, 30),
  }));
  return reply.json({ findings });
};

describe('AnthropicSubagentEngine.search', () => {
  it('whole pages: by default the researcher fetches the result search returned, and a finding quotes a sentence only the whole page holds', async () => {
    const url = 'https://stats.example.org/wind-2025';
    const page = fakePage(url);
    const deep = page.text.split('\n')[5]!; // a line no snippet or citation carries
    api.scriptByRole({
      researcher: [
        reply.pauseTurn([{ query: 'wind power', results: [{ url, title: 'Wind statistics' }] }]),
        reply.fetch([url]),
        reply.text('Report: the register and a 2022 survey disagree.', [{ url, title: 'Wind statistics', cited_text: page.text }]),
      ],
      extractor: (req) =>
        reply.json({
          findings: req.lastUserText.includes(deep) ? [{ claim: 'A 2022 survey counted fewer cases than the register.', sourceId: webSourceId(url), quote: deep }] : [],
          gaps: ['No figures before 2020.'],
          conflicts: [`${webSourceId(url)}: the 2022 survey disagrees with the register`],
        }),
    });
    const r = await new AnthropicSubagentEngine({ client: api.client(), subagentModel: 'claude-sonnet-5-5', maxIterations: 10 }).search(searchTask(), () => {});
    const first = api.accepted.find((q) => q.role === 'researcher')!.body;
    expect(first.tools.map((t: { name: string }) => t.name)).toEqual(['web_search', 'web_fetch']);
    // The page's text is the source's text: the sentence deep in it checks out as a verbatim quote.
    expect(r.sources.find((s) => s.id === webSourceId(url))!.text).toContain(deep);
    expect(r.findings).toEqual([expect.objectContaining({ sourceId: webSourceId(url), quote: deep })]);
    expect(r.usage.webFetchRequests).toBe(1);
    // The condensed report: the researcher's text, what the sources leave open, where they disagree.
    expect(r.report).toEqual({ text: 'Report: the register and a 2022 survey disagree.', gaps: ['No figures before 2020.'], conflicts: [`${webSourceId(url)}: the 2022 survey disagrees with the register`] });
  });

  it("every researcher and extractor prompt states today's date; a task's budget goes to the model as a task budget", async () => {
    api.scriptByRole({
      researcher: (req) => (req.toolResults.length ? reply.text('notes') : reply.toolUse([{ name: 'search_corpus', input: { query: 'wind' } }])),
      extractor: quotingExtractor,
    });
    const budget = { maxTokens: 100_000, maxToolCalls: 10, maxCostUsd: 5, deadline: new Date(Date.now() + 60_000).toISOString() };
    await engine().search(searchTask({ budget }), () => {});
    const today = new Date().toISOString().slice(0, 10);
    for (const role of ['researcher', 'extractor']) {
      const qs = api.accepted.filter((q) => q.role === role);
      expect(qs.length).toBeGreaterThan(0);
      for (const q of qs) expect(JSON.stringify(q.body.system)).toContain(`Today's date is ${today}.`);
    }
    for (const q of api.accepted.filter((x) => x.role === 'researcher')) {
      expect(q.body.output_config.task_budget).toEqual({ type: 'tokens', total: 65_000 });
      expect(String(q.headers['anthropic-beta'])).toContain('task-budgets-2026-03-13');
    }
  });

  it('caches the extraction prompt once its quote corrections are common enough to pay (over 28% of extractions), never before', async () => {
    let extractions = 0;
    api.scriptByRole({
      researcher: (req) => (req.toolResults.length ? reply.text('notes') : reply.toolUse([{ name: 'search_corpus', input: { query: 'wind' } }])),
      // Every first attempt misquotes, so every extraction is corrected once.
      extractor: (req) => (req.messages.length === 1 ? (extractions++, reply.json({ findings: [{ claim: 'c', sourceId: 'sotu-1990-p3', quote: 'not in the source' }] })) : quotingExtractor(req)),
    });
    const e = engine();
    for (let i = 0; i < 5; i++) await e.search(searchTask(), recorder().progress);
    expect(extractions).toBe(5);
    const firsts = api.accepted.filter((q) => q.role === 'extractor' && q.body.messages.length === 1);
    expect(firsts.map((q) => q.body.cache_control !== undefined)).toEqual([false, false, false, false, true]);
  });

  it('does not cache the extraction prompt while its first attempts pass', async () => {
    api.scriptByRole({
      researcher: (req) => (req.toolResults.length ? reply.text('notes') : reply.toolUse([{ name: 'search_corpus', input: { query: 'wind' } }])),
      extractor: quotingExtractor,
    });
    const e = engine();
    for (let i = 0; i < 5; i++) await e.search(searchTask(), recorder().progress);
    const extractor = api.accepted.filter((q) => q.role === 'extractor');
    expect(extractor).toHaveLength(5);
    expect(extractor.some((q) => q.body.cache_control !== undefined || JSON.stringify(q.body.system).includes('cache_control'))).toBe(false);
  });

  it('corpus client tools: text + tool_use, tool results as untrusted data, findings verified against recorded text', async () => {
    api.scriptByRole({
      researcher: [
        reply.toolUse([{ name: 'search_corpus', input: { query: 'wind' } }], 'I will search the corpus.'),
        reply.toolUse([
          { name: 'read_passage', input: { id: 'sotu-1990-p3' } },
          { name: 'read_passage', input: { id: 'no-such-passage' } },
        ]),
        reply.text('Notes: "Wind turbines now supply power" (sotu-1990-p3).'),
      ],
      extractor: (req) =>
        reply.json({
          findings: [
            { claim: 'Wind powers homes', sourceId: 'sotu-1990-p3', quote: 'Wind turbines now supply power to thousands of homes' },
            { claim: 'Invented', sourceId: 'sotu-1990-p3', quote: 'this sentence is not in the source' },
          ],
          // the extractor is asked about the sources it was shown
          _seen: req.lastUserText.includes('sotu-1990-p3'),
        }),
    });
    const { updates, progress } = recorder();
    const r = await engine().search(searchTask(), progress);
    expect(r.findings).toEqual([
      { id: 'run-1.r1.search.wind.f1', claim: 'Wind powers homes', sourceId: 'sotu-1990-p3', quote: 'Wind turbines now supply power to thousands of homes', subtopicId: 'wind' },
    ]);
    expect(r.sources.map((s) => s.id)).toEqual(['sotu-1990-p3']);
    expect(r.sources[0]!.text).toContain('Wind turbines now supply power');
    expect(r.stats).toMatchObject({ toolCalls: 3, toolErrors: 1, droppedFindings: 1, structuredRetries: 1 });
    // Tool results were wrapped as untrusted data; the unknown passage came back as an error.
    const toolResults = lastMessage(api.accepted[2]!.body).content;
    expect(toolResults[0].content).toMatch(/^<untrusted_source id="sotu-1990-p3"/);
    expect(toolResults[1]).toMatchObject({ is_error: true });
    // The retry carried the validation error; the remaining bad finding was dropped, not passed on.
    const extractorRequests = api.accepted.filter((q) => q.role === 'extractor');
    expect(extractorRequests).toHaveLength(2);
    expect(lastMessage(extractorRequests[1]!.body).content).toMatch(/not a verbatim substring/);
    expect(updates.some((u) => u.stage === 'extract')).toBe(true);
    // Only search/read/fetch tools are offered to subagents.
    expect(api.accepted[0]!.body.tools.map((t: { name: string }) => t.name)).toEqual(['search_corpus', 'read_passage']);
  });

  it('web search: pause_turn with server_tool_use + web_search_tool_result, then end_turn with web_search_result_location citations', async () => {
    const url = 'https://energy.example.org/wind';
    api.scriptByRole({
      researcher: [
        reply.pauseTurn([{ query: 'wind power capacity', results: [{ url, title: 'Wind report' }, { url: 'https://other.example.org', title: 'Other' }] }]),
        reply.endTurn([
          { type: 'text', text: 'According to the report, ', citations: null },
          {
            type: 'text',
            text: 'wind capacity grew 12% in 2024.',
            citations: [{ type: 'web_search_result_location', url, title: 'Wind report', cited_text: 'Installed wind capacity grew 12% in 2024.', encrypted_index: 'x' }],
          },
        ]),
      ],
      extractor: quotingExtractor,
    });
    const r = await engine({
      passages: undefined,
      webSearch: { enabled: true, maxUses: 4, allowedDomains: ['example.org'] },
    }).search(searchTask(), () => {});
    const id = webSourceId(url);
    expect(id).toMatch(/^web-[0-9a-f]{12}$/);
    expect(r.sources.find((s) => s.id === id)).toMatchObject({ kind: 'web', url, title: 'Wind report', text: 'Installed wind capacity grew 12% in 2024.' });
    expect(r.sources).toHaveLength(2); // the uncited result was seen too
    expect(r.findings).toEqual([expect.objectContaining({ sourceId: id, quote: 'Installed wind capacity grew 1' })]);
    expect(r.stats).toMatchObject({ continuations: 1, serverToolCalls: 1 });
    const tool = api.accepted[0]!.body.tools[0];
    expect(tool).toMatchObject({ type: 'web_search_20260318', name: 'web_search', max_uses: 4, allowed_domains: ['example.org'], allowed_callers: ['direct'] });
    // Server-tool turns are streamed, with the moving (top-level) cache breakpoint.
    expect(api.accepted[0]!.body).toMatchObject({ stream: true, cache_control: { type: 'ephemeral' } });
  });

  it('health monitor through the engine: idle searches → nudge → idle-stop, reported as a decision and a stat', async () => {
    // Searches until it is told to stop; then, with tools off, it writes its report.
    api.scriptByRole({
      researcher: (req) => (req.body.tool_choice?.type === 'none' ? reply.text('Report: wind power grew; nothing found on costs.') : reply.toolUse([{ name: 'search_corpus', input: { query: 'wind' } }])),
      extractor: quotingExtractor,
    });
    const { updates, progress } = recorder();
    const r = await engine().search(searchTask(), progress);
    // call 1 finds sotu-1990-p3 (new); calls 2-4 find nothing new → nudge; call 5 nothing new → stop, then the report.
    const researcher = api.accepted.filter((q) => q.role === 'researcher');
    expect(researcher).toHaveLength(6);
    // The nudge rides inside the last tool result: the turn holds tool results only.
    const nudged = lastMessage(researcher[4]!.body).content;
    expect(nudged.map((b: { type: string }) => b.type)).toEqual(['tool_result']);
    expect(nudged[0].content).toMatch(new RegExp(`${NUDGE_TEXT.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    expect(r.stats).toMatchObject({ nudges: 1, idleStops: 1 });
    expect(updates.map((u) => u.stage)).toContain('decision:idle-stop');
    expect(r.findings).toHaveLength(1); // it still returns what it has
    // The stop still ends with a written report: one more request, tools defined but not callable, the instruction
    // riding in the last tool result, the reply's text the task's report.
    const last = researcher[5]!.body;
    expect(last.tool_choice).toEqual({ type: 'none' });
    expect(lastMessage(last).content.map((b: { type: string }) => b.type)).toEqual(['tool_result']);
    expect(lastMessage(last).content[0].content).toContain(FINAL_REPORT_TEXT);
    expect(r.report?.text).toBe('Report: wind power grew; nothing found on costs.');
    expect(r.stats).toMatchObject({ finalTurns: 1 });
  });

  it('refusal: stops the loop and falls back to the corpus engine, logged as a fallback decision', async () => {
    api.scriptByRole({ researcher: reply.refusal('general_harms', 'no') });
    const fallback = fakeFallback();
    const { updates, progress } = recorder();
    const r = await engine({ fallback }).search(searchTask({ corpus: 'sotu' }), progress);
    expect(fallback.calls).toEqual(['search:run-1.r1.search.wind']);
    expect(r.findings[0]!.id).toBe('fb1');
    expect(r.stats).toMatchObject({ refusals: 1, fallbacks: 1 });
    expect(r.usage.inputTokens).toBeGreaterThan(0); // the refused call's tokens are counted
    expect(updates.map((u) => u.stage)).toEqual(expect.arrayContaining(['decision:refusal', 'decision:fallback']));
  });

  it("researches at high effort with summarized thinking, so the notes between tool calls reach progress; extracts at low effort", async () => {
    api.scriptByRole({
      researcher: [reply.toolUse([{ name: 'search_corpus', input: { query: 'wind' } }], 'Checking the corpus for wind farms.'), reply.text('notes')],
      extractor: quotingExtractor,
    });
    const { updates, progress } = recorder();
    await engine().search(searchTask(), progress);
    const researcher = api.accepted.filter((q) => q.role === 'researcher');
    for (const q of researcher) {
      expect(q.body.output_config.effort).toBe('high');
      expect(q.body.thinking).toEqual({ type: 'adaptive', display: 'summarized' });
      expect(q.stopReason).not.toBe('max_tokens');
    }
    expect(updates.map((u) => u.message)).toContain('note: Checking the corpus for wind farms.');
    expect(api.accepted.find((q) => q.role === 'extractor')!.body.output_config.effort).toBe('low');
  });

  it("counts the extractor's and the writer's prompts with the API (count_tokens) before sending them", async () => {
    api.scriptByRole({ researcher: [reply.toolUse([{ name: 'search_corpus', input: { query: 'wind' } }]), reply.text('notes')], extractor: quotingExtractor });
    await engine().search(searchTask(), () => {});
    const extractor = api.accepted.find((q) => q.role === 'extractor')!;
    expect(api.counted.map((q) => JSON.stringify(q.body.messages))).toContain(JSON.stringify(extractor.body.messages));
    api.reset();
    api.scriptByRole({ writer: reply.json({ title: 'Renewables', summary: 'ok', sections: [{ title: 'Wind', subtopicId: 'wind', paragraphs: [{ text: 'p', findingIds: ['f1'] }] }] }) });
    await engine().synthesize(synthesizeTask(), () => {});
    expect(api.counted.map((q) => JSON.stringify(q.body.messages))).toContain(JSON.stringify(api.accepted.find((q) => q.role === 'writer')!.body.messages));
  });

  it('a web task (no corpus) is never handed to the corpus engine: a refusal returns what it has', async () => {
    api.scriptByRole({ researcher: [reply.toolUse([{ name: 'search_corpus', input: { query: 'wind' } }]), reply.refusal()] });
    const fallback = fakeFallback();
    const r = await engine({ fallback }).search(searchTask(), () => {});
    expect(fallback.calls).toEqual([]);
    expect(r.findings).toEqual([]);
    expect(r.stats).toMatchObject({ refusals: 1 });
  });

  it('a refusal is retried on the fallback model first (a setting), and the corpus engine is never asked', async () => {
    const refusing: FakeHandler = (req) =>
      req.body.model === 'claude-sonnet-5-5'
        ? reply.refusal('general_harms', 'no')
        : req.messages.length === 1
          ? reply.toolUse([{ name: 'search_corpus', input: { query: 'wind' } }])
          : reply.text('notes');
    api.scriptByRole({ researcher: refusing, extractor: quotingExtractor });
    const fallback = fakeFallback();
    const { updates, progress } = recorder();
    const r = await engine({ fallback, refusalFallbackModel: 'claude-opus-5-5' }).search(searchTask({ corpus: 'sotu' }), progress);
    expect(fallback.calls).toEqual([]);
    expect(r.findings.length).toBeGreaterThan(0);
    expect(api.accepted.filter((q) => q.role === 'researcher').map((q) => q.body.model)).toEqual(['claude-sonnet-5-5', 'claude-opus-5-5', 'claude-opus-5-5']);
    expect(updates.map((u) => u.stage)).toContain('decision:model-fallback');
  });

  it('refusal without a fallback: returns what it has, marked', async () => {
    api.scriptByRole({ researcher: [reply.toolUse([{ name: 'search_corpus', input: { query: 'wind' } }]), reply.refusal()] });
    const r = await engine().search(searchTask(), () => {});
    expect(r.findings).toEqual([]);
    expect(r.sources.map((s) => s.id)).toEqual(['sotu-1990-p3']);
    expect(r.stats).toMatchObject({ refusals: 1 });
  });

  it('invalid structured output → one retry with the error → fallback engine', async () => {
    api.scriptByRole({
      researcher: [reply.toolUse([{ name: 'search_corpus', input: { query: 'wind' } }]), reply.text('notes')],
      extractor: [reply.rawJson('{"findings": [{"claim": 1}'), reply.json({ findings: [{ claim: '' }] })],
    });
    const fallback = fakeFallback();
    const { updates, progress } = recorder();
    const r = await engine({ fallback }).search(searchTask({ corpus: 'sotu' }), progress);
    const extractor = api.accepted.filter((q) => q.role === 'extractor');
    expect(extractor).toHaveLength(2);
    expect(lastMessage(extractor[1]!.body).content).toMatch(/failed validation:\n- not valid JSON/);
    expect(fallback.calls).toHaveLength(1);
    expect(r.stats).toMatchObject({ fallbacks: 1, structuredRetries: 1 });
    expect(updates.find((u) => u.stage === 'decision:fallback')?.message).toMatch(/findings .*invalid.*fell back to the corpus engine/);
  });

  it('invalid structured output twice without a fallback → a clear error', async () => {
    api.scriptByRole({
      researcher: [reply.toolUse([{ name: 'search_corpus', input: { query: 'wind' } }]), reply.text('notes')],
      extractor: [reply.rawJson('nope'), reply.rawJson('still nope')],
    });
    await expect(engine().search(searchTask(), () => {})).rejects.toThrow(/findings \(task run-1.r1.search.wind\): model output invalid.*no fallback engine is configured/);
  });

  it('no research tool configured: a clear error, or the fallback when there is one', async () => {
    await expect(engine({ passages: undefined }).search(searchTask(), () => {})).rejects.toThrow(/no research tool is configured/);
    const fallback = fakeFallback();
    const r = await engine({ passages: undefined, fallback }).search(searchTask({ corpus: 'sotu' }), () => {});
    expect(r.stats).toMatchObject({ fallbacks: 1 });
    expect(api.requests).toHaveLength(0);
  });

  it('redacts the task payload and passages before anything reaches the API', async () => {
    api.scriptByRole({
      researcher: [reply.toolUse([{ name: 'search_corpus', input: { query: 'tidal grants' } }]), reply.text('notes')],
      extractor: quotingExtractor,
    });
    const task = searchTask(
      { query: 'wind grants, call +1 415-555-0100' },
      {
        objective: 'Ask jane.doe@example.com about card 4111 1111 1111 1111',
        correction: 'server 10.20.30.40 and SSN 123-45-6789',
        excerpts: [{ sourceId: 'x1', text: 'IBAN DE89 3704 0044 0532 0130 00' }],
      },
    );
    const { updates, progress } = recorder();
    const r = await engine().search(task, progress);
    const everything = api.requests.map((q) => q.raw).join('\n');
    for (const raw of ['jane.doe@example.com', '4111 1111 1111 1111', '415-555-0100', '10.20.30.40', '123-45-6789', 'DE89 3704', 'grants@energy.example.gov']) {
      expect(everything).not.toContain(raw);
    }
    for (const kind of ['email', 'card', 'phone', 'ipv4', 'ssn', 'iban']) expect(everything).toContain(`[REDACTED:${kind}]`);
    // The passage is recorded as shown (redacted), so quotes stay checkable against the ledger.
    expect(r.sources.find((s) => s.id === 'sotu-1991-p2')?.text).toContain('[REDACTED:email]');
    expect(r.stats['redactions']).toBeGreaterThanOrEqual(7);
    // Reported to the hub as one redaction decision with counts per kind, never the values.
    const reported = updates.filter((u) => u.stage === 'decision:redaction');
    expect(reported).toHaveLength(1);
    expect(reported[0]!.decision).toMatchObject({ decisionType: 'redaction', level: 'L0', signals: { total: r.stats['redactions'], email: expect.any(Number), card: expect.any(Number), ssn: 1, iban: 1 } });
    expect(JSON.stringify(reported)).not.toMatch(/jane\.doe|4111 1111|123-45-6789|DE89 3704/);
  });

  it('takes the corpus tools from the task\'s corpus, resolved per task', async () => {
    api.scriptByRole({
      researcher: [reply.toolUse([{ name: 'search_corpus', input: { query: 'tidal grants' } }]), reply.text('notes')],
      extractor: quotingExtractor,
    });
    const asked: Array<string | undefined> = [];
    const passages = makePassages();
    const r = await engine({ passages: undefined, passagesFor: (corpus) => (asked.push(corpus), passages) }).search(searchTask({ corpus: 'notes' }), () => {});
    expect(asked).toEqual(['notes']);
    expect(r.sources.length).toBeGreaterThan(0);
    const first = api.requests.find((q) => q.role === 'researcher')!;
    expect(first.body.tools.map((t: { name: string }) => t.name)).toContain('search_corpus');
  });

  it('sums usage over every request of the task, as the API billed it, priced', async () => {
    api.scriptByRole({
      researcher: [reply.toolUse([{ name: 'search_corpus', input: { query: 'wind' } }]), reply.text('notes')],
      extractor: reply.json({ findings: [] }),
    });
    const r = await engine().search(searchTask(), () => {});
    expect(api.accepted).toHaveLength(3);
    const billed = (k: string) => api.accepted.reduce((n, q) => n + (q.usage[k] ?? 0), 0);
    expect(r.usage).toMatchObject({
      inputTokens: billed('input_tokens'),
      outputTokens: billed('output_tokens'),
      cacheReadTokens: billed('cache_read_input_tokens'),
      cacheWriteTokens: billed('cache_creation_input_tokens'),
    });
    // These prompts are far below Sonnet's minimum cacheable length: the API caches nothing, silently.
    expect(r.usage.cacheReadTokens + r.usage.cacheWriteTokens).toBe(0);
    expect(r.usage.costUsd).toBeGreaterThan(0);
  });
});

describe('AnthropicSubagentEngine.synthesize', () => {
  it('maps finding ids to citations with the findings\' own quotes, honouring maxCitations', async () => {
    api.scriptByRole({
      writer: reply.json({
        title: 'Renewables',
        summary: 'Short.',
        sections: [
          {
            title: 'Wind',
            subtopicId: 'wind',
            paragraphs: [
              { text: 'Wind powers homes.', findingIds: ['f1'] },
              { text: 'Solar doubled.', findingIds: ['f2'] },
            ],
          },
        ],
      }),
    });
    const r = await engine().synthesize(synthesizeTask({ maxCitations: 1 }), () => {});
    expect(r.sections).toEqual([
      { title: 'Wind', subtopicId: 'wind', paragraphs: [{ text: 'Wind powers homes.', citations: [{ sourceId: 'sotu-1990-p3', quote: 'Wind turbines now supply power' }] }] },
    ]);
    expect(r.stats).toMatchObject({ droppedCitations: 1, structuredRetries: 1 }); // the over-limit draft was sent back once
    const writer = api.accepted.filter((q) => q.role === 'writer');
    expect(lastMessage(writer[1]!.body).content).toMatch(/cites 2 distinct sources; the limit is 1/);
  });

  it('max_tokens in the middle of JSON: retried once with a larger limit, the truncated JSON never used', async () => {
    api.scriptByRole({
      writer: [
        { ...reply.rawJson('{"title":"Renewables","summary":"Sho'), stop_reason: 'max_tokens' },
        reply.json({ title: 'Renewables', summary: 'ok', sections: [{ title: 'Wind', subtopicId: 'wind', paragraphs: [{ text: 'p', findingIds: ['f1'] }] }] }),
      ],
    });
    const r = await engine({ maxTokens: 8000 }).synthesize(synthesizeTask(), () => {});
    expect(r.title).toBe('Renewables');
    const [first, second] = api.accepted;
    // The writer's answer (8000) plus the room its effort (high: it writes the report) thinks in.
    expect(first!.body.max_tokens).toBe(24000);
    expect(second!.body.max_tokens).toBe(48000);
    expect(second!.body.messages).toHaveLength(1); // the cut-off JSON was not passed on
  });

  it('max_tokens twice: truncated output goes to the fallback, never through', async () => {
    const cut = { ...reply.rawJson('{"title":"Re'), stop_reason: 'max_tokens' as const };
    api.scriptByRole({ writer: [cut, cut] });
    const fallback = fakeFallback();
    const r = await engine({ fallback }).synthesize(synthesizeTask(), () => {});
    expect(r.title).toBe('fallback report');
    expect(r.stats).toMatchObject({ fallbacks: 1 });
  });
});
