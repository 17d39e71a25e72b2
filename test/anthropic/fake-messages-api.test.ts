import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiError, FakeMessagesApi, reply, webSearchBlocks } from '../support/fake-messages-api';

/** The fake must reject what the real API rejects, or the loop tests prove nothing. */
let api: FakeMessagesApi;
beforeAll(async () => {
  api = await FakeMessagesApi.start();
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
    ['two user messages in a row', { ...base, messages: [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }] }, /roles must alternate/],
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
