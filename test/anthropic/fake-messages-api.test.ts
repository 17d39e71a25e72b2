import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiError, FakeMessagesApi, reply, webSearchBlocks } from '../support/fake-messages-api';

/** The fake must reject what the real API rejects, or the loop tests prove nothing. */
let api: FakeMessagesApi;
beforeAll(async () => {
  // Exact reply shapes: thinking off here; its behaviour has its own tests below.
  api = await FakeMessagesApi.start({ thinking: false });
});
afterEach(() => api.reset());
afterAll(async () => api.close());

const tool = { name: 'lookup', input_schema: { type: 'object' as const, properties: {} } };
const base = { model: 'claude-sonnet-5-5', max_tokens: 100 };
const toolUse = (id: string) => ({ type: 'tool_use' as const, id, name: 'lookup', input: {} });
const toolResult = (id: string) => ({ type: 'tool_result' as const, tool_use_id: id, content: 'r' });

async function post(body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${api.baseURL}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as { type: string; error?: { type: string; message: string } } };
}

describe('fake Messages API: request validation (400 invalid_request_error like the API)', () => {
  it.each<[string, Record<string, unknown>, RegExp]>([
    ['missing model', { max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }, /^model: Field required$/],
    ['missing max_tokens', { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, /^max_tokens: Field required$/],
    ['first message from the assistant', { ...base, messages: [{ role: 'assistant', content: 'hi' }] }, /first message must use the "user" role/],
    [
      'a tool_use without a tool_result after it',
      { ...base, tools: [tool], messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: [toolUse('t1')] }, { role: 'user', content: 'b' }] },
      /`tool_use` ids were found without `tool_result` blocks immediately after: t1/,
    ],
    [
      'a tool_result with a wrong id',
      { ...base, tools: [tool], messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: [toolUse('t1')] }, { role: 'user', content: [toolResult('t1'), toolResult('t9')] }] },
      /unexpected `tool_use_id` found in `tool_result` blocks: t9/,
    ],
    [
      'text before the tool_result',
      { ...base, tools: [tool], messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: [toolUse('t1')] }, { role: 'user', content: [{ type: 'text', text: 'x' }, toolResult('t1')] }] },
      /tool_result` blocks must come first/,
    ],
    [
      'tool blocks without tools',
      { ...base, messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: [toolUse('t1')] }, { role: 'user', content: [toolResult('t1')] }] },
      /must define tools/,
    ],
    [
      'an orphaned server_tool_use in the middle of the history',
      {
        ...base,
        tools: [{ type: 'web_search_20260318', name: 'web_search' }],
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [webSearchBlocks('q', [])[0]] },
          { role: 'user', content: 'b' },
        ],
      },
      /`server_tool_use` ids were found without a corresponding result block/,
    ],
    ['a non-strict structured-output schema', { ...base, messages: [{ role: 'user', content: 'a' }], output_config: { format: { type: 'json_schema', schema: { type: 'object', properties: {} } } } }, /additionalProperties/],
    ['a structured-output format without schema', { ...base, messages: [{ role: 'user', content: 'a' }], output_config: { format: { type: 'json_schema' } } }, /schema: Field required/],
    [
      'web search with both allowed and blocked domains',
      { ...base, tools: [{ type: 'web_search_20260318', name: 'web_search', allowed_domains: ['a.org'], blocked_domains: ['b.org'] }], messages: [{ role: 'user', content: 'a' }] },
      /both allowed_domains and blocked_domains/,
    ],
    [
      'more than 4 cache_control blocks',
      { ...base, system: [1, 2, 3, 4, 5].map((n) => ({ type: 'text', text: `s${n}`, cache_control: { type: 'ephemeral' } })), messages: [{ role: 'user', content: 'a' }] },
      /A maximum of 4 blocks with cache_control may be provided. Found 5./,
    ],
  ])('rejects %s', async (_name, body, message) => {
    api.setHandler(() => reply.text('should not be reached'));
    const r = await post(body);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(r.json.error!.message).toMatch(message);
    expect(r.headers.get('request-id')).toMatch(/^req_/);
    expect(api.requests[0]!.validationError).toMatch(message);
  });

  it('accepts a valid tool round trip and a paused server tool call as the final message', async () => {
    api.setHandler(() => reply.text('ok'));
    const ok1 = await post({ ...base, tools: [tool], messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: [{ type: 'text', text: 'hm' }, toolUse('t1')] }, { role: 'user', content: [toolResult('t1'), { type: 'text', text: 'go on' }] }] });
    const ok2 = await post({ ...base, tools: [{ type: 'web_search_20260318', name: 'web_search' }], messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: [webSearchBlocks('q', [])[0]] }] });
    expect([ok1.status, ok2.status]).toEqual([200, 200]);
  });

  it('refuses to serve a scripted structured reply to a request without a schema', async () => {
    api.enqueue(reply.json({ a: 1 }));
    const r = await post({ ...base, messages: [{ role: 'user', content: 'a' }] });
    expect(r.status).toBe(400);
    expect(r.json.error!.message).toMatch(/no output_config.format schema/);
  });

  it('surfaces validation errors to the SDK as BadRequestError', async () => {
    const client = api.client();
    await expect(client.messages.create({ ...base, messages: [{ role: 'assistant', content: 'x' }] })).rejects.toBeInstanceOf(Anthropic.BadRequestError);
  });
});

describe('fake Messages API: responses', () => {
  it('answers with the Message shape the SDK expects, usage included', async () => {
    api.enqueue(reply.text('hello'));
    const m = await api.client().messages.create({ ...base, messages: [{ role: 'user', content: 'hi' }] });
    expect(m).toMatchObject({ type: 'message', role: 'assistant', model: base.model, stop_reason: 'end_turn', content: [{ type: 'text', text: 'hello' }] });
    expect(m.usage.input_tokens).toBeGreaterThan(0);
    expect(m.id).toMatch(/^msg_/);
  });

  it('429 and 529 carry the real error JSON, request-id and retry-after', async () => {
    api.enqueue(apiError.rateLimited(7), apiError.overloaded());
    const limited = await post({ ...base, messages: [{ role: 'user', content: 'a' }] });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(limited.json).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' }, request_id: expect.stringMatching(/^req_/) });
    const overloaded = await post({ ...base, messages: [{ role: 'user', content: 'a' }] });
    expect(overloaded.status).toBe(529);
    expect(overloaded.json).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  });

  it('scriptByRole answers by the system prompt\'s Orrery role; the last queued reply repeats', async () => {
    api.scriptByRole({ judge: [reply.text('j1'), reply.text('j2')], planner: (req) => reply.text(`plan for ${req.lastUserText}`) });
    const client = api.client();
    const ask = async (role: string, text: string) => {
      const m = await client.messages.create({ ...base, system: `Orrery role: ${role}.\nrest`, messages: [{ role: 'user', content: text }] });
      return (m.content[0] as { text: string }).text;
    };
    expect(await ask('judge', 'x')).toBe('j1');
    expect(await ask('planner', 'topic')).toBe('plan for topic');
    expect(await ask('judge', 'x')).toBe('j2');
    expect(await ask('judge', 'x')).toBe('j2');
    expect(api.requests.map((r) => r.role)).toEqual(['judge', 'planner', 'judge', 'judge']);
  });

  it('a request nobody scripted gets a clear 400, not a hang', async () => {
    const r = await post({ ...base, messages: [{ role: 'user', content: 'a' }] });
    expect(r.status).toBe(400);
    expect(r.json.error!.message).toMatch(/no scripted reply for request #0/);
  });
});

/* The fake must be able to fail where the real API would on each point of the Claude engine's contract. */
describe('fake Messages API: what the real API does that the engine relies on', () => {
  const web = { type: 'web_search_20260318', name: 'web_search' };
  const deferredTurn = () => {
    const deferred = { type: 'server_tool_use', id: 'srvtoolu_d1', name: 'web_search', input: { query: 'q' }, caller: { type: 'direct' } };
    return [{ role: 'user', content: 'a' }, { role: 'assistant', content: [deferred, toolUse('t1')] }];
  };

  it('combines consecutive turns of one role, as the API does; strictAlternation refuses them', async () => {
    api.setHandler(() => reply.text('ok'));
    expect((await post({ ...base, messages: [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }] })).status).toBe(200);
    const strict = await FakeMessagesApi.start({ strictAlternation: true, handler: () => reply.text('ok') });
    try {
      const res = await fetch(`${strict.baseURL}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ ...base, messages: [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }] }),
      });
      expect(res.status).toBe(400);
    } finally {
      await strict.close();
    }
  });

  it('a server call deferred beside a client call: tool results only in the answer (text refused), and the deferred search runs then, billed once', async () => {
    api.setHandler(() => reply.text('done'));
    const refused = await post({ ...base, tools: [tool, web], messages: [...deferredTurn(), { role: 'user', content: [toolResult('t1'), { type: 'text', text: 'nudge' }] }] });
    expect(refused.status).toBe(400);
    expect(refused.json.error!.message).toMatch(/may contain only `tool_result` blocks, found `text`/);
    const ok = await api.client().messages.create({ ...base, tools: [tool, web] as never, messages: [...deferredTurn(), { role: 'user', content: [toolResult('t1')] }] as never });
    expect(ok.content[0]).toMatchObject({ type: 'web_search_tool_result', tool_use_id: 'srvtoolu_d1' });
    expect(ok.usage.server_tool_use).toEqual({ web_search_requests: 1, web_fetch_requests: 0 });
    expect(api.billedSearches.map((b) => b.query)).toEqual(['q']);
    // Sent back as returned, the history is valid: the result in the later turn pairs with the deferred call.
    const next = await post({ ...base, tools: [tool, web], messages: [...deferredTurn(), { role: 'user', content: [toolResult('t1')] }, { role: 'assistant', content: ok.content }, { role: 'user', content: 'more' }] });
    expect(next.status).toBe(200);
  });

  it('a server call without result in the middle of a history, with no client call beside it, is refused', async () => {
    api.setHandler(() => reply.text('x'));
    const r = await post({ ...base, tools: [web], messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: [{ type: 'server_tool_use', id: 's9', name: 'web_search', input: {} }] }, { role: 'user', content: 'b' }] });
    expect(r.status).toBe(400);
  });

  it('containers: code filtering web pages names one; a follow-up while its code runs must name it, and only a live one', async () => {
    const callers = ['direct', 'code_execution_20260120'];
    const tools = [
      { ...web, allowed_callers: callers },
      { type: 'web_fetch_20260318', name: 'web_fetch', allowed_callers: callers },
      { type: 'code_execution_20260120', name: 'code_execution' },
    ];
    api.enqueue(reply.codeExecution({ url: 'https://a.org/p', title: 'A', pageText: 'long page', stdout: 'the part', pending: true }));
    const first = await api.client().messages.create({ ...base, tools: tools as never, messages: [{ role: 'user', content: 'a' }] });
    expect(first.container?.id).toMatch(/^container_/);
    const history = [{ role: 'user', content: 'a' }, { role: 'assistant', content: first.content }];
    api.setHandler(() => reply.text('ok'));
    const without = await post({ ...base, tools, messages: history });
    expect(without.status).toBe(400);
    expect(without.json.error!.message).toBe('container_id is required when there are pending tool uses generated by code execution with tools.');
    expect((await post({ ...base, tools, messages: history, container: 'container_nope' })).status).toBe(400);
    expect((await post({ ...base, tools, messages: history, container: first.container!.id })).status).toBe(200);
  });

  it('server-side fallback: `fallbacks` needs its beta header and entries of its own keys; a refusal is served by the fallback model', async () => {
    const msg = { ...base, model: 'claude-opus-5-5', messages: [{ role: 'user', content: 'hi' }] };
    const beta = { 'anthropic-beta': 'server-side-fallback-2026-07-01' };
    expect((await post({ ...msg, fallbacks: [{ model: 'claude-sonnet-5-5' }] })).json.error?.message).toMatch(/^fallbacks: Extra inputs are not permitted/);
    expect((await post({ ...msg, fallbacks: [{ model: 'claude-sonnet-5-5', temperature: 0 }] }, beta)).json.error?.message).toBe('fallbacks.0.temperature: Extra inputs are not permitted');
    expect((await post({ ...msg, fallbacks: [{}] }, beta)).json.error?.message).toBe('fallbacks.0.model: Field required');
    api.setHandler((req) => (req.body.model === 'claude-opus-5-5' ? reply.refusal('cyber', 'no') : reply.text('served')));
    const r = await post({ ...msg, fallbacks: [{ model: 'claude-sonnet-5-5' }] }, beta);
    const body = r.json as unknown as { stop_reason: string; content: Array<Record<string, unknown>>; usage: { iterations?: Array<{ type: string; model: string }> } };
    expect(body.stop_reason).toBe('end_turn');
    expect(body.content[0]).toEqual({ type: 'fallback', from: { model: 'claude-opus-5-5' }, to: { model: 'claude-sonnet-5-5' }, trigger: { type: 'refusal', category: 'cyber' } });
    expect(body.content[1]).toMatchObject({ type: 'text', text: 'served' });
    expect(body.usage.iterations?.at(-1)).toMatchObject({ type: 'fallback_message', model: 'claude-sonnet-5-5' });
  });

  it('a web tool callable from code needs that code execution tool', async () => {
    api.setHandler(() => reply.text('x'));
    const r = await post({ ...base, tools: [{ ...web, allowed_callers: ['code_execution_20260120'] }], messages: [{ role: 'user', content: 'a' }] });
    expect(r.status).toBe(400);
    expect(r.json.error!.message).toMatch(/requires the code_execution_20260120 tool/);
  });

  it('caching: a prefix below the model minimum is never cached; at or above it is written, then read, up to the last breakpoint only', async () => {
    api.setHandler(() => reply.text('ok'));
    const client = api.client();
    const short = { ...base, model: 'claude-sonnet-5-5', cache_control: { type: 'ephemeral' }, messages: [{ role: 'user', content: 'short prompt' }] };
    for (let i = 0; i < 2; i++) {
      const m = await client.messages.create(short as never);
      expect([m.usage.cache_creation_input_tokens, m.usage.cache_read_input_tokens]).toEqual([0, 0]);
    }
    // Sonnet 5's minimum is 1,024 tokens; the fake counts 4 characters a token.
    const long = 'x'.repeat(5000);
    const cached = { ...base, model: 'claude-sonnet-5-5', cache_control: { type: 'ephemeral' }, messages: [{ role: 'user', content: long }] };
    const w = await client.messages.create(cached as never);
    expect(w.usage.cache_creation_input_tokens).toBeGreaterThanOrEqual(1024);
    expect(w.usage.cache_read_input_tokens).toBe(0);
    const r = await client.messages.create(cached as never);
    expect(r.usage.cache_read_input_tokens).toBe(w.usage.cache_creation_input_tokens);
    expect(r.usage.input_tokens).toBe(0);
    // The same prompt for another model is another cache.
    expect((await client.messages.create({ ...cached, model: 'claude-opus-5-5' } as never)).usage.cache_read_input_tokens).toBe(0);
    // No breakpoint, no caching at all; what follows the last breakpoint is neither read nor written.
    expect((await client.messages.create({ ...cached, cache_control: undefined } as never)).usage.cache_read_input_tokens).toBe(0);
    const grown = { ...cached, cache_control: undefined, messages: [{ role: 'user', content: [{ type: 'text', text: long, cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'y'.repeat(8000) }] }] };
    const g = await client.messages.create(grown as never);
    expect(g.usage.cache_read_input_tokens).toBe(w.usage.cache_creation_input_tokens);
    expect(g.usage.cache_creation_input_tokens).toBe(0);
    expect(g.usage.input_tokens).toBeGreaterThanOrEqual(2000);
  });

  it('caching: a read looks back at most 20 blocks from a breakpoint', async () => {
    api.setHandler(() => reply.text('ok'));
    const client = api.client();
    const head = [{ type: 'text', text: 'h'.repeat(6000) }];
    const filler = (n: number) => Array.from({ length: n }, (_, i) => ({ type: 'text', text: `block ${i}` }));
    const ask = (extra: number) =>
      client.messages.create({ ...base, model: 'claude-sonnet-5-5', cache_control: { type: 'ephemeral' }, messages: [{ role: 'user', content: [...head, ...filler(extra)] }] } as never);
    const first = await ask(0);
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect((await ask(20)).usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    api.cache.clear();
    await ask(0);
    expect((await ask(21)).usage.cache_read_input_tokens).toBe(0);
  });

  it('returns an empty end_turn when scripted, and rate-limit headers on every answer', async () => {
    api.enqueue(reply.empty(), apiError.rateLimited(2));
    const empty = await post({ ...base, messages: [{ role: 'user', content: 'a' }] });
    expect(empty.status).toBe(200);
    expect((empty.json as unknown as { content: unknown[]; stop_reason: string }).content).toEqual([]);
    expect(empty.headers.get('anthropic-ratelimit-requests-limit')).toBe('4000');
    expect(Number(empty.headers.get('anthropic-ratelimit-requests-remaining'))).toBeGreaterThan(0);
    const limited = await post({ ...base, messages: [{ role: 'user', content: 'a' }] });
    expect(limited.headers.get('retry-after')).toBe('2');
    api.rateLimitFor(60_000, 3);
    const wall = await post({ ...base, messages: [{ role: 'user', content: 'a' }] });
    expect([wall.status, wall.headers.get('retry-after'), wall.headers.get('anthropic-ratelimit-requests-remaining')]).toEqual([429, '3', '0']);
  });

  it('streams the same message the SDK assembles with messages.stream().finalMessage()', async () => {
    const scripted = reply.toolUse([{ name: 'lookup', input: { q: 'x' }, id: 'toolu_s' }], 'Let me see.', webSearchBlocks('q', [{ url: 'https://a.org', title: 'A' }]));
    api.enqueue(scripted, scripted);
    const params = { ...base, tools: [tool, web] as never, messages: [{ role: 'user' as const, content: 'a' }] };
    const plain = await api.client().messages.create(params);
    const streamed = await api.client().messages.stream(params).finalMessage();
    expect(streamed.content).toEqual(plain.content);
    expect(streamed.stop_reason).toBe('tool_use');
    expect(streamed.usage.server_tool_use).toEqual({ web_search_requests: 1, web_fetch_requests: 0 });
    expect(api.requests[1]!.streamed).toBe(true);
  });

  it('cuts an idle non-streaming connection on a long server-tool turn (billing its searches anyway); a stream stays alive', async () => {
    const slow = await FakeMessagesApi.start({ idleCutMs: 200, pingMs: 50, thinking: false });
    try {
      const turn = () => ({ ...reply.pauseTurn([{ query: 'q', results: [{ url: 'https://a.org', title: 'A' }] }]), durationMs: 500 });
      slow.enqueue(turn(), turn());
      const params = { ...base, tools: [web] as never, messages: [{ role: 'user' as const, content: 'a' }] };
      await expect(slow.client({ maxRetries: 0 }).messages.create(params)).rejects.toBeInstanceOf(Anthropic.APIConnectionError);
      const m = await slow.client({ maxRetries: 0 }).messages.stream(params).finalMessage();
      expect(m.stop_reason).toBe('pause_turn');
      expect(slow.billedSearches).toHaveLength(2);
      expect(slow.requests.map((r) => r.cut ?? false)).toEqual([true, false]);
    } finally {
      await slow.close();
    }
  });

  it('refuses a prompt longer than the context window with the API message', async () => {
    const small = await FakeMessagesApi.start({ contextWindow: 100, handler: () => reply.text('x') });
    try {
      const res = await fetch(`${small.baseURL}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ ...base, messages: [{ role: 'user', content: 'x'.repeat(1000) }] }),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/^prompt is too long: \d+ tokens > 100 maximum$/);
    } finally {
      await small.close();
    }
  });
});

describe('fake Messages API: the default models think (whats-new-opus-5-5, the model pages)', () => {
  let thinking: FakeMessagesApi;
  beforeAll(async () => {
    thinking = await FakeMessagesApi.start();
  });
  afterEach(() => thinking.reset());
  afterAll(async () => thinking.close());
  const send = (body: Record<string, unknown>) =>
    fetch(`${thinking.baseURL}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, json: (await r.json()) as any })); // eslint-disable-line @typescript-eslint/no-explicit-any
  const user = [{ role: 'user', content: 'hi' }];

  it('thinks by default, inside max_tokens: a limit sized for the answer alone stops at max_tokens; usage says how much was thinking', async () => {
    thinking.enqueue(reply.text('ok'), reply.text('ok'), reply.text('ok'));
    const small = await send({ model: 'claude-haiku-5-5', max_tokens: 512, messages: user });
    expect(small.json.stop_reason).toBe('max_tokens');
    expect(small.json.content.map((b: { type: string }) => b.type)).toEqual(['thinking']);
    const roomy = await send({ model: 'claude-haiku-5-5', max_tokens: 4000, messages: user });
    expect(roomy.json.stop_reason).toBe('end_turn');
    expect(roomy.json.content.map((b: { type: string }) => b.type)).toEqual(['thinking', 'text']);
    expect(roomy.json.usage.output_tokens_details.thinking_tokens).toBeGreaterThan(0);
    expect(roomy.json.usage.output_tokens).toBeGreaterThan(roomy.json.usage.output_tokens_details.thinking_tokens);
    // Lower effort thinks less.
    const low = await send({ model: 'claude-haiku-5-5', max_tokens: 4000, output_config: { effort: 'low' }, messages: user });
    expect(low.json.usage.output_tokens_details.thinking_tokens).toBeLessThan(roomy.json.usage.output_tokens_details.thinking_tokens);
  });

  it('refuses thinking disabled (or a manual budget) on Opus 5.5, and forced tool use on Opus and Sonnet 5.5', async () => {
    const off = await send({ model: 'claude-opus-5-5', max_tokens: 100, thinking: { type: 'disabled' }, messages: user });
    expect(off.status).toBe(400);
    expect(off.json.error.message).toMatch(/^"thinking.type.disabled" is not supported for this model/);
    const budget = await send({ model: 'claude-opus-5-5', max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 2000 }, messages: user });
    expect(budget.status).toBe(400);
    for (const model of ['claude-opus-5-5', 'claude-sonnet-5-5']) {
      const forced = await send({ model, max_tokens: 100, tools: [tool], tool_choice: { type: 'tool', name: 'lookup' }, messages: user });
      expect(forced.status).toBe(400);
      expect(forced.json.error.message).toMatch(/forced tool use/);
    }
  });

  it('binds thinking blocks to the conversation: sent back as returned they pass; after a rewritten tool result they are refused', async () => {
    thinking.enqueue({ ...reply.toolUse([{ name: 'lookup', input: {}, id: 'toolu_1' }], 'Looking it up.') }, reply.text('done'), reply.toolUse([{ name: 'lookup', input: {}, id: 'toolu_2' }]));
    const body = (messages: unknown[]) => ({ model: 'claude-sonnet-5-5', max_tokens: 8000, output_config: { effort: 'low' }, tools: [tool], messages });
    const first = await send(body([{ role: 'user', content: 'a' }]));
    // Text between tool calls comes back in the thinking block, empty at the default display.
    expect(first.json.content.map((b: { type: string }) => b.type)).toEqual(['thinking', 'tool_use']);
    expect(first.json.content[0].thinking).toBe('');
    const history = [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: first.json.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'result one' }] },
    ];
    const second = await send(body(history));
    expect(second.status).toBe(200);
    const next = [...history, { role: 'assistant', content: second.json.content }, { role: 'user', content: 'more' }];
    const rewritten = structuredClone(next);
    (rewritten[2]!.content as Array<{ content: string }>)[0]!.content = '[cleared]';
    const refused = await send(body(rewritten));
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toBe('messages.3.content.0: Invalid `signature` in `thinking` block');
    // Another model cannot take them either.
    expect((await send({ ...body(next), model: 'claude-opus-5-5' })).status).toBe(400);
  });

  it('summarized display returns the text written between tool calls', async () => {
    thinking.enqueue(reply.toolUse([{ name: 'lookup', input: {} }], 'Looking it up.'));
    const r = await send({ model: 'claude-opus-5-5', max_tokens: 8000, thinking: { type: 'adaptive', display: 'summarized' }, tools: [tool], messages: user });
    expect(r.json.content[0]).toMatchObject({ type: 'thinking', thinking: 'Looking it up.' });
  });
});

describe('fake Messages API: web pages and task budgets as the API serves them (fake-web-tools.ts)', () => {
  const webSearch = { type: 'web_search_20260318', name: 'web_search', max_uses: 5 };
  const webFetch = (extra: Record<string, unknown> = {}) => ({ type: 'web_fetch_20260318', name: 'web_fetch', max_uses: 2, ...extra });
  type Block = { type: string; content?: Json; citations?: Array<{ cited_text: string }> };
  type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

  it('search results arrive encrypted: no page text but through a citation, whose cited_text holds at most 150 characters', async () => {
    const long = 'x'.repeat(400);
    api.enqueue(reply.endTurn([...webSearchBlocks('q', [{ url: 'https://a.org/p', title: 'A' }]), { ...reply.text('t', [{ url: 'https://a.org/p', title: 'A', cited_text: long }]).content[0] }]));
    const r = await post({ ...base, tools: [webSearch], messages: [{ role: 'user', content: 'q' }] });
    const content = (r.json as Json).content as Block[];
    const result = content.find((b) => b.type === 'web_search_tool_result')!.content[0];
    expect(Object.keys(result).sort()).toEqual(['encrypted_content', 'page_age', 'title', 'type', 'url']);
    expect(content.at(-1)!.citations![0]!.cited_text).toHaveLength(150);
  });

  it('web fetch returns the page as a text document, only for a URL search returned earlier; otherwise the tool\'s own error', async () => {
    const tools = [webSearch, webFetch({ url_sources: { server_tool_results: { type: 'only', tools: [{ type: 'tool_reference', name: 'web_search' }] }, client_tool_results: { type: 'none' }, user_input: { type: 'none' } } })];
    // A URL the user wrote is not one search returned: refused as not in prior context.
    api.enqueue(reply.fetch(['https://a.org/p']));
    const refused = await post({ ...base, tools, messages: [{ role: 'user', content: 'read https://a.org/p' }] });
    const err = ((refused.json as Json).content as Block[]).find((b) => b.type === 'web_fetch_tool_result')!.content;
    expect(err).toEqual({ type: 'web_fetch_tool_result_error', error_code: 'url_not_in_prior_context' });
    // After a search returned it, the fetch brings the whole page: text no citation carries.
    api.enqueue(reply.endTurn([...webSearchBlocks('q', [{ url: 'https://a.org/p', title: 'A' }]), ...reply.fetch(['https://a.org/p']).content]));
    const ok = await post({ ...base, tools, messages: [{ role: 'user', content: 'q' }] });
    const doc = ((ok.json as Json).content as Block[]).find((b) => b.type === 'web_fetch_tool_result')!.content;
    expect(doc.type).toBe('web_fetch_result');
    expect(doc.content).toMatchObject({ type: 'document', source: { type: 'text', media_type: 'text/plain' } });
    expect(doc.content.source.data.length).toBeGreaterThan(150);
    expect((ok.json as Json).usage.server_tool_use.web_fetch_requests).toBe(1);
    // Past max_uses, the tool says so.
    api.enqueue(reply.endTurn([...webSearchBlocks('q', [{ url: 'https://a.org/p', title: 'A' }]), ...reply.fetch(['https://a.org/p', 'https://a.org/p', 'https://a.org/p']).content]));
    const many = await post({ ...base, tools, messages: [{ role: 'user', content: 'q' }] });
    const codes = ((many.json as Json).content as Block[]).filter((b) => b.type === 'web_fetch_tool_result').map((b) => b.content.error_code ?? b.content.type);
    expect(codes).toEqual(['web_fetch_result', 'web_fetch_result', 'max_uses_exceeded']);
  });

  it('task_budget: refused without its beta header or on a model the docs do not list; accepted with both', async () => {
    const body = { ...base, output_config: { task_budget: { type: 'tokens', total: 40_000 } }, messages: [{ role: 'user', content: 'hi' }] };
    api.setHandler(() => reply.text('ok'));
    const bare = await post(body);
    expect(bare.status).toBe(400);
    expect(bare.json.error!.message).toMatch(/task-budgets-2026-03-13 beta header/);
    expect((await post({ ...body, model: 'claude-sonnet-4-5' }, { 'anthropic-beta': 'task-budgets-2026-03-13' })).status).toBe(400);
    expect((await post({ ...body, output_config: { task_budget: { type: 'tokens', total: 1000 } } }, { 'anthropic-beta': 'task-budgets-2026-03-13' })).status).toBe(400);
    expect((await post(body, { 'anthropic-beta': 'context-management-2025-06-27,task-budgets-2026-03-13' })).status).toBe(200);
  });

  it('tool_choice none: a scripted tool call is a script error, as the API never makes one', async () => {
    api.enqueue(reply.toolUse([{ name: 'lookup', input: {} }]));
    const r = await post({ ...base, tools: [tool], tool_choice: { type: 'none' }, messages: [{ role: 'user', content: 'hi' }] });
    expect(r.status).toBe(400);
  });
});
