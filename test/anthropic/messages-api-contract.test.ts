/**
 * The Claude engine against what the real Messages API does (issue 15): each test is one point where a request the
 * real API would refuse, or a cost users would not expect, once slipped through. The fake enforces the documented
 * behaviour (see test/support/fake-messages-*.ts); every test here failed on the engine before the fix.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { SearchTask } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import type { ModelJudgeInput as JudgeInput, CoordinatorEngine, PassageHit, SubagentEngine } from '../../libs/engine/src/engine';
import { AnthropicCoordinatorEngine } from '../../libs/claude-engine/src/coordinator-engine';
import { AnthropicEngineError } from '../../libs/claude-engine/src/errors';
import { AnthropicSubagentEngine } from '../../libs/claude-engine/src/subagent-engine';
import { webSourceId } from '../../libs/claude-engine/src/sources';
import { type AnthropicEngineOptions } from '../../libs/claude-engine/src/options';
import { NUDGE_TEXT } from '../../libs/claude-engine/src/prompts';
import { apiError, deferredWebSearch, FakeMessagesApi, reply, type FakeRequest } from '../support/fake-messages-api';
import { researchScript } from '../support/fake-research-script';
import { publishedCost } from '../support/fake-published-prices';
import { makePassages, recorder, searchTask, useFakeMessagesApi } from './fixtures';

let api: FakeMessagesApi;
useFakeMessagesApi((started) => (api = started));

const engine = (over: Partial<AnthropicEngineOptions> = {}, client: Anthropic = api.client()) =>
  new AnthropicSubagentEngine({
    client,
    subagentModel: 'claude-sonnet-5-5',
    webSearch: { enabled: false },
    passages: makePassages(),
    maxContinuations: 3,
    maxIterations: 12,
    ...over,
  });

/** The brief (first user message) of a request, as text. */
const briefOf = (req: FakeRequest): string => {
  const c = req.messages[0]?.content;
  return typeof c === 'string' ? c : (c ?? []).map((b: { text?: string }) => b.text ?? '').join('\n');
};

/** An extractor that quotes the first `n` characters of every source it was given. */
const quoting =
  (n = 30) =>
  (req: FakeRequest) =>
    reply.json({
      findings: [...briefOf(req).matchAll(/<untrusted_source id="([^"]+)"[^>]*>\n([^\n]+)/g)].map((m) => ({ claim: `from ${m[1]}`, sourceId: m[1]!, quote: m[2]!.slice(0, n) })),
    });

const ZERO = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, webSearchRequests: 0, webFetchRequests: 0, costUsd: 0 };

const fallbackSubagent = (): SubagentEngine & { calls: string[] } => {
  const calls: string[] = [];
  return {
    name: 'corpus',
    calls,
    async search(task) {
      calls.push(task.taskId);
      return { kind: 'search', taskId: task.taskId, findings: [], sources: [], usage: { ...ZERO }, stats: {} };
    },
    async synthesize(task) {
      calls.push(task.taskId);
      return { kind: 'synthesize', taskId: task.taskId, title: 't', summary: '', sections: [], usage: { ...ZERO }, stats: {} };
    },
  };
};

const budget = (over: Partial<NonNullable<SearchTask['budget']>> = {}): NonNullable<SearchTask['budget']> => ({
  maxTokens: 1_000_000,
  maxToolCalls: 100,
  maxCostUsd: 100,
  deadline: new Date(Date.now() + 600_000).toISOString(),
  ...over,
});

/** Passages long enough that a few searches pass Sonnet's 1,024-token cache minimum, as real pages do. */
const LONG_PASSAGES: PassageHit[] = Array.from({ length: 12 }, (_, i) => ({
  id: `long-${i}`,
  title: `Report ${i}`,
  text: `Wind power report ${i}: ${'turbines and grids and storage and demand. '.repeat(40)}`,
  score: 0,
}));

describe('item 1: deferred server tools', () => {
  it('a web search deferred beside a corpus call, on the turn the idle nudge is due: the answer holds tool results only, and the task completes', async () => {
    const cited = { url: 'https://example.org/wind-power/1', title: 'wind power (1)', cited_text: 'Wind is the fastest growing source.' };
    api.scriptByRole({
      researcher: [reply.toolUse([{ name: 'search_corpus', input: { query: 'wind' } }], 'Searching both.', [deferredWebSearch('wind power')]), reply.text('Notes on wind.', [cited])],
      extractor: quoting(),
    });
    // The corpus passage is already known to the run, so the call is idle and (threshold 1) the nudge is due now.
    const r = await engine({ idleThreshold: 1, webSearch: { enabled: true } }).search(searchTask({ knownSourceIds: ['sotu-1990-p3'] }), () => {});
    const [first, second] = api.accepted.filter((q) => q.role === 'researcher');
    expect(first!.body.messages).toHaveLength(1);
    const answer = second!.body.messages.at(-1).content;
    expect(answer.map((b: { type: string }) => b.type)).toEqual(['tool_result']);
    expect(answer[0].content).toContain(NUDGE_TEXT);
    expect(r.stats['nudges']).toBe(1);
    // The deferred search ran with the tool results, once, and its pages are sources of the task.
    expect(api.billedSearches.map((b) => b.query)).toEqual(['wind power']);
    expect(r.sources.map((s) => s.id)).toEqual(expect.arrayContaining([webSourceId('https://example.org/wind-power/1'), webSourceId('https://example.org/wind-power/3')]));
    expect(r.findings.some((f) => f.sourceId === webSourceId(cited.url))).toBe(true);
  });

  it('an empty end_turn after tool results: the loop asks once, in a new user turn, and gets the notes', async () => {
    api.scriptByRole({
      researcher: [reply.toolUse([{ name: 'search_corpus', input: { query: 'wind' } }]), reply.empty(), reply.text('The notes after all.')],
      extractor: quoting(),
    });
    const { updates, progress } = recorder();
    const r = await engine().search(searchTask(), progress);
    const researcher = api.accepted.filter((q) => q.role === 'researcher');
    expect(researcher).toHaveLength(3);
    expect(researcher[2]!.body.messages.at(-1)).toEqual({ role: 'user', content: 'Please continue.' });
    expect(r.stats['emptyReplies']).toBe(1);
    expect(updates.map((u) => u.stage)).toContain('decision:empty-reply');
    expect(r.findings.length).toBeGreaterThan(0);
  });
});

describe('item 2: containers and code-execution output', () => {
  it('code filtering a page: every follow-up names the container, and the filtered text is a source its quotes check against', async () => {
    const url = 'https://rivers.example.org/kestrel';
    const stdout = 'The Kestrel River flooded in 1998 after the Harlow levee failed.';
    api.scriptByRole({
      researcher: [
        reply.codeExecution({ url, title: 'Kestrel River history', pageText: 'A long page about the river and its towns.', stdout, pending: true }),
        (req) => {
          const exec = req.messages.at(-1).content.find((b: { name?: string }) => b.name === 'code_execution');
          return reply.codeExecutionDone(exec.id, stdout, 'Notes on the flood.');
        },
      ],
      extractor: (req) => reply.json({ findings: [{ claim: 'The river flooded in 1998.', sourceId: webSourceId(url), quote: 'flooded in 1998 after the Harlow levee failed' }] }),
    });
    const r = await engine({ passages: undefined, webSearch: { enabled: true, callers: 'code-execution' }, webFetch: { enabled: true } }).search(searchTask(), () => {});
    const researcher = api.accepted.filter((q) => q.role === 'researcher');
    expect(researcher).toHaveLength(2);
    expect(researcher[0]!.body.tools.map((t: { name: string }) => t.name)).toEqual(['web_search', 'web_fetch', 'code_execution']);
    const container = researcher[1]!.body.container;
    expect(container).toMatch(/^container_/);
    expect(r.sources.find((s) => s.id === webSourceId(url))?.text).toContain(stdout);
    expect(r.findings).toEqual([expect.objectContaining({ sourceId: webSourceId(url), quote: 'flooded in 1998 after the Harlow levee failed' })]);
  });

  it('direct-only calling (the default): the web tools say allowed_callers ["direct"] and no code execution tool is offered', async () => {
    // The continuation cap ends the loop; its tool-free final turn gets the report.
    api.scriptByRole({
      researcher: (req) => (req.body.tool_choice?.type === 'none' ? reply.text('report') : reply.pauseTurn([{ query: 'q', results: [{ url: 'https://a.org', title: 'A' }] }])),
      extractor: quoting(),
    });
    await engine({ passages: undefined, webSearch: { enabled: true }, webFetch: { enabled: true }, maxContinuations: 0 }).search(searchTask(), () => {});
    const tools = api.accepted[0]!.body.tools;
    expect(tools.map((t: { name: string; allowed_callers?: string[] }) => [t.name, t.allowed_callers])).toEqual([
      ['web_search', ['direct']],
      ['web_fetch', ['direct']],
    ]);
  });
});

describe('item 3: web text is redacted at intake', () => {
  it('cited web text with personal data reaches neither the extractor nor the sources raw, and its quotes still check out', async () => {
    const url = 'https://energy.example.org/contacts';
    const cited = 'Contact ops.lead@example.com or +1 415-555-0199 for the 2024 wind capacity data.';
    api.scriptByRole({
      researcher: [
        reply.pauseTurn([{ query: 'wind capacity contacts', results: [{ url, title: 'Wind data contacts' }] }]),
        reply.text('Notes.', [{ url, title: 'Wind data contacts', cited_text: cited }]),
      ],
      extractor: quoting(60),
    });
    const r = await engine({ passages: undefined, webSearch: { enabled: true } }).search(searchTask(), () => {});
    const extractor = api.accepted.filter((q) => q.role === 'extractor');
    expect(extractor).toHaveLength(1);
    expect(extractor[0]!.raw).not.toContain('ops.lead@example.com');
    expect(extractor[0]!.raw).not.toContain('415-555-0199');
    const source = r.sources.find((s) => s.id === webSourceId(url))!;
    expect(source.text).toBe('Contact [REDACTED:email] or [REDACTED:phone] for the 2024 wind capacity data.');
    expect(r.findings).toHaveLength(1);
    expect(source.text).toContain(r.findings[0]!.quote);
    expect(r.stats['redactions']).toBeGreaterThanOrEqual(2);
  });
});

describe('item 4: prompt caching that hits', () => {
  it('a multi-turn research task reads its growing history back from the cache (the fake counting like the API)', async () => {
    const script = researchScript();
    api.scriptByRole({ researcher: script['researcher']!, extractor: quoting() });
    const r = await engine({ passages: makePassages(LONG_PASSAGES), webSearch: { enabled: true } }).search(searchTask({ query: 'wind power' }), () => {});
    const researcher = api.accepted.filter((q) => q.role === 'researcher');
    expect(researcher.length).toBeGreaterThanOrEqual(5);
    const input = r.usage.inputTokens + r.usage.cacheReadTokens + r.usage.cacheWriteTokens;
    expect(r.usage.cacheReadTokens / input).toBeGreaterThan(0.4);
    // Every researcher request after the first two reads at least the previous request's prompt.
    for (const q of researcher.slice(2)) expect(q.usage.cache_read_input_tokens).toBeGreaterThan(1024);
  });

  it('a one-shot structured call puts no cache breakpoint on its prompt: a write (1.25×) pays back only on a rare retry', async () => {
    api.scriptByRole({
      researcher: [reply.toolUse([{ name: 'search_corpus', input: { query: 'wind' } }]), reply.text('notes')],
      extractor: [reply.rawJson('{"findings": ['), quoting()],
    });
    await engine({ passages: makePassages(LONG_PASSAGES) }).search(searchTask(), () => {});
    const extractor = api.accepted.filter((q) => q.role === 'extractor');
    expect(extractor).toHaveLength(2);
    for (const q of extractor) {
      expect(q.body.cache_control).toBeUndefined();
      expect(JSON.stringify(q.body)).not.toContain('cache_control');
      expect(q.usage.cache_creation_input_tokens).toBe(0);
    }
    // The research conversation, which grows turn by turn, still caches.
    expect(api.accepted.filter((q) => q.role === 'researcher').every((q) => q.body.cache_control)).toBe(true);
  });
});

describe('item 6: cut-offs, refused requests, aborts', () => {
  it('a reply cut off in the middle of a tool call is asked for again with more room', async () => {
    api.scriptByRole({
      researcher: [{ ...reply.toolUse([{ name: 'search_corpus', input: { query: 'wi' } }], 'Searching'), stop_reason: 'max_tokens' }, reply.text('notes')],
      extractor: quoting(),
    });
    await engine({ maxTokens: 1000 }).search(searchTask(), () => {});
    const researcher = api.accepted.filter((q) => q.role === 'researcher');
    // The answer's 1000 plus the 16,000 a high-effort researcher may think in; then twice that.
    expect(researcher.map((q) => q.body.max_tokens)).toEqual([17_000, 34_000]);
  });

  it('a request the API refuses as too long falls back to the corpus engine, logged as a fallback', async () => {
    const small = await FakeMessagesApi.start({ contextWindow: 60 });
    try {
      const fallback = fallbackSubagent();
      const { updates, progress } = recorder();
      const r = await engine({ fallback }, small.client()).search(searchTask({ corpus: 'sotu' }), progress);
      expect(small.rejected[0]!.validationError).toMatch(/^prompt is too long/);
      expect(fallback.calls).toEqual([searchTask().taskId]);
      expect(r.stats['fallbacks']).toBe(1);
      expect(updates.find((u) => u.stage === 'decision:fallback')?.message).toMatch(/prompt is too long/);

      const corpus: CoordinatorEngine = {
        name: 'corpus',
        taskEstimate: { tokens: 0, costUsd: 0 },
        plan: async () => ({ plan: { classification: 'breadth', subtopics: [] }, decisions: [], usage: { ...ZERO } }),
        refine: async () => ({ newSubtopics: [], thinSubtopicIds: [], decisions: [], usage: { ...ZERO } }),
        replan: async () => ({ newSubtopics: [], thinSubtopicIds: [], decisions: [], usage: { ...ZERO } }),
      };
      const planned = await new AnthropicCoordinatorEngine({ client: small.client(), fallback: corpus }).plan({ runId: 'r', topic: 'wind power in Europe', corpus: 'sotu', maxSubtopics: 4, coverageCheck: true });
      expect(planned.decisions).toContainEqual(expect.objectContaining({ decisionType: 'fallback', conclusion: expect.stringMatching(/prompt is too long/) }));
    } finally {
      await small.close();
    }
  });

  it('a loop refused part-way still counts what its earlier replies cost, in the fallen-back result', async () => {
    // The first request fits the window; the second carries the search results too and does not.
    const script = { researcher: [reply.toolUse([{ name: 'search_corpus', input: { query: 'wind power' } }], 'Searching'), reply.text('notes')], extractor: quoting() };
    api.scriptByRole(script);
    await engine({ passages: makePassages(LONG_PASSAGES) }).search(searchTask({ query: 'wind power' }), () => {});
    const [first, second] = api.accepted.filter((q) => q.role === 'researcher').map((q) => q.usage.input_tokens + q.usage.cache_read_input_tokens + q.usage.cache_creation_input_tokens);
    const small = await FakeMessagesApi.start({ contextWindow: Math.floor((first! + second!) / 2) });
    try {
      small.scriptByRole(script);
      const r = await engine({ fallback: fallbackSubagent(), passages: makePassages(LONG_PASSAGES) }, small.client()).search(searchTask({ query: 'wind power', corpus: 'sotu' }), () => {});
      expect(small.rejected[0]!.validationError).toMatch(/^prompt is too long/);
      const billed = small.accepted.filter((q) => q.role === 'researcher');
      expect(billed).toHaveLength(1);
      expect(r.stats['fallbacks']).toBe(1);
      expect(r.usage.outputTokens).toBe(billed[0]!.usage.output_tokens);
      expect(r.usage.inputTokens + r.usage.cacheReadTokens + r.usage.cacheWriteTokens).toBe(first);
      expect(r.usage.costUsd).toBeGreaterThan(0);
    } finally {
      await small.close();
    }
  });

  it('a request its caller aborts is an abort, not a retryable connection failure', async () => {
    api.setHandler(() => ({ ...reply.json({ signal: 'continue', confidence: 0.6, reason: 'r' }), durationMs: 3000 }));
    const input: JudgeInput = { goal: 'g', round: 1, lastActions: [], yield: { newFindings: 1, newSources: 1 }, stateSummary: 's', signalHistory: { pivots: 0 }, abortSignal: AbortSignal.timeout(200) };
    const err = await new AnthropicCoordinatorEngine({ client: api.client() }).judgeVerdict(input).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnthropicEngineError);
    expect(err).toMatchObject({ aborted: true, retryable: false });
    expect(api.requests).toHaveLength(1);
  });
});

describe('item 7: the task budget', () => {
  it('the loop stops gracefully at the task\'s token share with what it has (a budget-stop decision), within one request of it', async () => {
    const script = researchScript();
    api.scriptByRole({ researcher: script['researcher']!, extractor: quoting() });
    const { updates, progress } = recorder();
    const cap = 9000;
    const r = await engine({ passages: makePassages(LONG_PASSAGES), webSearch: { enabled: true } }).search(searchTask({ query: 'wind power', budget: budget({ maxTokens: cap }) }), progress);
    const spent = r.usage.inputTokens + r.usage.outputTokens + r.usage.cacheReadTokens + r.usage.cacheWriteTokens;
    const biggest = Math.max(...api.accepted.map((q) => q.usage.input_tokens + q.usage.output_tokens + q.usage.cache_read_input_tokens + q.usage.cache_creation_input_tokens));
    expect(spent).toBeLessThanOrEqual(cap + biggest);
    expect(updates.find((u) => u.stage === 'decision:budget-stop')?.decision).toMatchObject({ decisionType: 'budget-stop', signals: { maxTokens: expect.any(Number) } });
    expect(r.stats['budgetStops']).toBe(1);
    expect(r.sources.length).toBeGreaterThan(0);
  });

  it('a request still running at the task\'s deadline is cut off, and the task returns what it has', async () => {
    api.scriptByRole({
      researcher: [reply.toolUse([{ name: 'search_corpus', input: { query: 'wind' } }]), { ...reply.text('slow notes'), durationMs: 5000 }],
      extractor: quoting(),
    });
    const { updates, progress } = recorder();
    const started = Date.now();
    const r = await engine().search(searchTask({ budget: budget({ deadline: new Date(Date.now() + 800).toISOString() }) }), progress);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(updates.map((u) => u.stage)).toContain('decision:budget-stop');
    expect(r.sources.map((s) => s.id)).toContain('sotu-1990-p3');
  });
});

describe('item 8: cost', () => {
  it('counts web searches billed apart from tokens and prices every request by its model', async () => {
    api.scriptByRole({
      researcher: [reply.pauseTurn([{ query: 'a', results: [{ url: 'https://a.org', title: 'A' }] }, { query: 'b', results: [{ url: 'https://b.org', title: 'B' }] }]), reply.text('notes')],
      extractor: reply.json({ findings: [] }),
    });
    const r = await engine({ passages: undefined, webSearch: { enabled: true } }).search(searchTask(), () => {});
    expect(r.usage.webSearchRequests).toBe(2);
    // Each request at its model's published prices (Sonnet 5.5: $2 in, $10 out per MTok), $10 per 1,000 searches.
    const expected = api.accepted.reduce((n, q) => n + publishedCost(q.body.model, q.usage), 0);
    expect(r.usage.costUsd).toBeCloseTo(expected, 5);
  });
});

describe('item 9: long turns are streamed', () => {
  it('a server-tool turn that takes longer than an idle connection lives is streamed: it arrives, and its searches are billed once', async () => {
    const slow = await FakeMessagesApi.start({ idleCutMs: 400, pingMs: 100 });
    try {
      // The model does the same turn for the same history: a resent request runs (and bills) the searches again.
      slow.scriptByRole({
        researcher: (req) => (req.messages.length === 1 ? { ...reply.pauseTurn([{ query: 'wind', results: [{ url: 'https://a.org', title: 'A' }] }]), durationMs: 1200 } : reply.text('notes')),
        extractor: reply.json({ findings: [] }),
      });
      const r = await engine({ passages: undefined, webSearch: { enabled: true } }, slow.client()).search(searchTask(), () => {});
      expect(slow.billedSearches).toHaveLength(1);
      expect(slow.requests.filter((q) => q.role === 'researcher').every((q) => q.streamed)).toBe(true);
      expect(r.usage.webSearchRequests).toBe(1);
    } finally {
      await slow.close();
    }
  });

  it('a 429 on a streamed turn is waited out like any other', async () => {
    api.scriptByRole({ researcher: [apiError.rateLimited(1), reply.text('notes')], extractor: reply.json({ findings: [] }) });
    await engine({ passages: undefined, webSearch: { enabled: true } }).search(searchTask(), () => {});
    expect(api.requests.filter((q) => q.role === 'researcher').map((q) => q.status)).toEqual([429, 200]);
  });
});
