import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runAgentLoop, type AgentLoopConfig } from '../../libs/claude-engine/src/agent-loop';
import { MessagesApi } from '../../libs/claude-engine/src/messages-client';
import { DEFAULT_PRICES } from '../../libs/claude-engine/src/pricing';
import { NUDGE_TEXT, SYSTEM_PROMPTS } from '../../libs/claude-engine/src/prompts';
import { FakeMessagesApi, reply } from '../support/fake-messages-api';
import { useFakeMessagesApi, lastMessage } from './fixtures';

let api: FakeMessagesApi;
useFakeMessagesApi((started) => (api = started));

const lookupTool = {
  name: 'lookup',
  description: 'look something up',
  input_schema: { type: 'object' as const, properties: { q: { type: 'string' } }, required: ['q'], additionalProperties: false },
};

function loop(over: Partial<AgentLoopConfig> = {}) {
  let n = 0;
  return runAgentLoop({
    api: new MessagesApi({ client: api.client(), prices: DEFAULT_PRICES }),
    model: 'claude-sonnet-5-5',
    system: SYSTEM_PROMPTS.researcher,
    messages: [{ role: 'user', content: 'research wind power' }],
    tools: [lookupTool],
    // By default every lookup brings a new source.
    clientTools: { lookup: (input) => ({ content: `result for ${JSON.stringify(input)}`, newSources: ++n }) },
    maxTokens: 1024,
    // The model thinks by default, inside max_tokens: low effort leaves these scripted replies room.
    effort: 'low',
    maxContinuations: 3,
    maxIterations: 10,
    label: 'test loop',
    ...over,
  });
}

describe('agent loop against the fake Messages API', () => {
  it('keeps going when a reply has text AND a tool_use (stop_reason decides, not the text)', async () => {
    api.enqueue(reply.toolUse([{ name: 'lookup', input: { q: 'wind' }, id: 'toolu_a' }], 'Let me look that up first.'), reply.text('All done.'));
    const r = await loop();
    expect(r.status).toBe('completed');
    expect(r.finalText).toBe('All done.');
    expect(api.accepted).toHaveLength(2);
    const second = api.accepted[1]!.body;
    expect(second.messages).toHaveLength(3);
    // On Sonnet 5.5 the text before a tool call comes back inside the thinking block, which goes back as returned.
    expect(second.messages[1].content.map((b: { type: string }) => b.type)).toEqual(['thinking', 'tool_use']);
    expect(lastMessage(second).content).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_a', content: 'result for {"q":"wind"}' }]);
  });

  it('answers several parallel tool_use blocks in ONE user message, ids matched, failures as is_error', async () => {
    api.enqueue(
      reply.toolUse([
        { name: 'lookup', input: { q: 'a' }, id: 'toolu_1' },
        { name: 'broken', input: {}, id: 'toolu_2' },
        { name: 'lookup', input: { q: 'b' }, id: 'toolu_3' },
        { name: 'fails', input: {}, id: 'toolu_4' },
      ]),
      reply.text('ok'),
    );
    const r = await loop({
      tools: [lookupTool, { ...lookupTool, name: 'fails' }],
      clientTools: {
        lookup: (i) => ({ content: `r ${JSON.stringify(i)}`, newSources: 1 }),
        fails: () => {
          throw new Error('backend down');
        },
      },
    });
    expect(r.status).toBe('completed');
    const results = lastMessage(api.accepted[1]!.body).content;
    expect(results.map((b: { tool_use_id: string }) => b.tool_use_id)).toEqual(['toolu_1', 'toolu_2', 'toolu_3', 'toolu_4']);
    expect(results[0]).not.toHaveProperty('is_error');
    expect(results[1]).toMatchObject({ is_error: true, content: expect.stringContaining('Unknown tool "broken"') });
    expect(results[3]).toMatchObject({ is_error: true, content: expect.stringContaining('backend down') });
    expect(r.stats).toMatchObject({ toolCalls: 4, toolErrors: 2 });
  });

  it('pause_turn: sends the assistant content back unchanged, then finishes on end_turn', async () => {
    const paused = reply.pauseTurn([{ query: 'wind', results: [{ url: 'https://ex.org/w', title: 'Wind' }] }], 'Searching...');
    const pending = reply.pauseTurnPending('more wind');
    api.enqueue(paused, pending, reply.text('Done.'));
    const r = await loop({ tools: [{ type: 'web_search_20260318', name: 'web_search', max_uses: 3 }], clientTools: {} });
    expect(r.status).toBe('completed');
    expect(r.stats.continuations).toBe(2);
    const [, second, third] = api.accepted;
    // Sent back as returned: the thinking block (which holds the text between tool calls), then the search and result.
    const firstTurn = lastMessage(second!.body).content;
    expect(firstTurn[0].type).toBe('thinking');
    expect(firstTurn.slice(1)).toEqual(paused.content.filter((b: { type: string }) => b.type !== 'text'));
    // The continuation joins the same assistant turn; a server tool still running is sent back as the final message.
    expect(third!.body.messages).toHaveLength(2);
    const joined = lastMessage(third!.body).content;
    expect(joined.slice(0, firstTurn.length)).toEqual(firstTurn);
    expect(joined.slice(firstTurn.length).map((b: { type: string }) => b.type)).toEqual(['thinking', 'server_tool_use']);
  });

  it('pause_turn: caps continuations and logs the cap', async () => {
    api.setHandler(() => reply.pauseTurn([{ query: 'q', results: [{ url: `https://ex.org/${Math.random()}`, title: 't' }] }]));
    const r = await loop({ maxContinuations: 2, tools: [{ type: 'web_search_20260318', name: 'web_search' }], clientTools: {} });
    expect(r.status).toBe('continuation-cap');
    expect(api.accepted).toHaveLength(3);
    expect(r.decisions).toContainEqual(expect.objectContaining({ decisionType: 'continuation-cap' }));
  });

  it('max_tokens: continues with the complete part, then marks truncated once continuations run out', async () => {
    api.enqueue(reply.maxTokens('The first half of'), reply.maxTokens('the notes, still'), reply.maxTokens('going'));
    const r = await loop({ maxTokensContinuations: 2 });
    expect(r.status).toBe('truncated');
    expect(api.accepted).toHaveLength(3);
    expect(lastMessage(api.accepted[1]!.body).content).toMatch(/cut off/);
    expect(r.decisions).toContainEqual(expect.objectContaining({ decisionType: 'truncated' }));
  });

  it('max_tokens cutting a tool_use: the incomplete call is never sent back', async () => {
    api.enqueue({ ...reply.toolUse([{ name: 'lookup', input: { q: 'x' } }], 'Thinking'), stop_reason: 'max_tokens' }, reply.text('fine'));
    const r = await loop();
    expect(r.status).toBe('completed');
    const sent = api.accepted[1]!.body.messages[1];
    // The complete part: the thinking block and the text; the cut tool call is dropped.
    expect(sent.content.map((b: { type: string }) => b.type)).toEqual(['thinking', 'text']);
  });

  it('refusal: stops and records it', async () => {
    api.enqueue(reply.refusal('cyber', 'declined'));
    const r = await loop();
    expect(r.status).toBe('refused');
    expect(r.refusal).toEqual({ category: 'cyber', explanation: 'declined' });
    expect(r.decisions).toContainEqual(expect.objectContaining({ decisionType: 'refusal', signals: { category: 'cyber' } }));
  });

  it('keeps the history append-only: after a full context window nothing earlier is rewritten, so no thinking block goes stale', async () => {
    api.enqueue(
      reply.toolUse([{ name: 'lookup', input: { q: '1' }, id: 'toolu_c1' }]),
      reply.toolUse([{ name: 'lookup', input: { q: '2' }, id: 'toolu_c2' }]),
      reply.contextWindowExceeded('partial'),
      reply.text('done'),
    );
    const r = await loop({ maxTokens: 8000 });
    // Rewriting an earlier tool result would void the thinking blocks after it (400 invalid signature): the loop
    // finishes with what it has instead, and leaves clearing to the API (context_management).
    expect(api.rejected).toEqual([]);
    expect(r.status).toBe('context-exhausted');
    // Every request's history is the one before it, extended (cache breakpoints aside: they are not content).
    const content = (ms: Array<{ role: string; content: unknown }>) =>
      JSON.parse(JSON.stringify(ms.map((m) => ({ ...m, content: typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content })), (k, v) => (k === 'cache_control' ? undefined : v)));
    for (let i = 1; i < api.accepted.length; i++) {
      const before = content(api.accepted[i - 1]!.body.messages);
      expect(content(api.accepted[i]!.body.messages).slice(0, before.length)).toEqual(before);
    }
    expect(r.decisions).toContainEqual(expect.objectContaining({ decisionType: 'context-window-finish' }));
  });

  it('asks the API to clear old tool results server-side (context_management, behind its beta header)', async () => {
    api.enqueue(reply.toolUse([{ name: 'lookup', input: { q: '1' } }]), reply.text('done'));
    const r = await loop({ contextManagement: { triggerInputTokens: 100_000, keepToolUses: 4, clearAtLeastTokens: 20_000 } });
    expect(r.status).toBe('completed');
    for (const q of api.accepted) {
      expect(q.headers['anthropic-beta']).toBe('context-management-2025-06-27');
      expect(q.body.context_management).toEqual({
        edits: [{ type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 100_000 }, keep: { type: 'tool_uses', value: 4 }, clear_at_least: { type: 'input_tokens', value: 20_000 } }],
      });
    }
  });

  it('model_context_window_exceeded with nothing to clear: finishes with what is there, logging it', async () => {
    api.enqueue(reply.contextWindowExceeded('partial'));
    const r = await loop();
    expect(r.status).toBe('context-exhausted');
    expect(r.decisions).toContainEqual(expect.objectContaining({ decisionType: 'context-window-finish' }));
  });

  it('health monitor: 3 idle tool calls → one nudge; the next idle call ends the loop (idle-stop)', async () => {
    api.setHandler(() => reply.toolUse([{ name: 'lookup', input: { q: 'same' } }]));
    const r = await loop({ clientTools: { lookup: () => ({ content: 'nothing new', newSources: 0 }) } });
    expect(r.status).toBe('idle-stopped');
    expect(api.accepted).toHaveLength(4);
    // The nudge rides inside the last tool result, never as text after the results.
    const nudged = lastMessage(api.accepted[3]!.body).content;
    expect(nudged.map((b: { type: string }) => b.type)).toEqual(['tool_result']);
    expect(nudged[0].content).toBe(`nothing new\n\n${NUDGE_TEXT}`);
    expect(lastMessage(api.accepted[2]!.body).content[0].content).toBe('nothing new');
    expect(r.stats).toMatchObject({ nudges: 1, idleStops: 1 });
    expect(r.decisions.map((d) => d.decisionType)).toEqual(['health-nudge', 'idle-stop']);
  });

  it('health monitor: a new source resets the idle streak', async () => {
    const yields = [0, 0, 1, 0, 0];
    api.setHandler((req) => (req.index < yields.length ? reply.toolUse([{ name: 'lookup', input: { q: String(req.index) } }]) : reply.text('done')));
    let i = 0;
    const r = await loop({ clientTools: { lookup: () => ({ content: 'x', newSources: yields[i++] ?? 0 }) } });
    expect(r.status).toBe('completed');
    expect(r.stats.nudges).toBe(0);
  });

  it('iteration cap is a logged safety net', async () => {
    api.setHandler(() => reply.toolUse([{ name: 'lookup', input: { q: 'x' } }]));
    const r = await loop({ maxIterations: 3 });
    expect(r.status).toBe('iteration-cap');
    expect(api.accepted).toHaveLength(3);
    expect(r.decisions).toContainEqual(expect.objectContaining({ decisionType: 'iteration-cap' }));
  });

  it('cache breakpoints move with the conversation: automatic (top level), the system prompt, and the previous turn; the growing history is read back', async () => {
    api.enqueue(
      reply.toolUse([{ name: 'lookup', input: { q: '1' } }]),
      reply.toolUse([{ name: 'lookup', input: { q: '2' } }]),
      reply.toolUse([{ name: 'lookup', input: { q: '3' } }]),
      reply.text('done'),
    );
    // Each result is ~1,500 tokens, so the history passes Sonnet's 1,024-token minimum after the first turn.
    const r = await loop({ clientTools: { lookup: (input) => ({ content: `${JSON.stringify(input)} ${'evidence '.repeat(650)}`, newSources: 1 }) } });
    expect(r.status).toBe('completed');
    const bodies = api.accepted.map((q) => q.body);
    for (const b of bodies) {
      expect(b.cache_control).toEqual({ type: 'ephemeral' });
      expect(b.system[0].cache_control).toEqual({ type: 'ephemeral' });
      expect(b.tools.some((t: { cache_control?: unknown }) => t.cache_control)).toBe(false);
    }
    // From the third request on, the previous request's last block carries a breakpoint of its own.
    const marked = (b: { messages: Array<{ content: unknown }> }) =>
      b.messages.map((m) => (Array.isArray(m.content) ? m.content.some((x: { cache_control?: unknown }) => x.cache_control) : false));
    expect(marked(bodies[2]!)).toEqual([false, false, true, false, false]);
    const usage = api.accepted.map((q) => q.usage);
    expect(usage[0]!.cache_creation_input_tokens).toBe(0); // the first request is below the minimum
    expect(usage[1]!.cache_creation_input_tokens).toBeGreaterThan(1024);
    for (const u of usage.slice(2)) expect(u.cache_read_input_tokens).toBeGreaterThan(1024);
    expect(r.usage.cacheReadTokens).toBe(usage.reduce((n, u) => n + u.cache_read_input_tokens, 0));
    expect(r.usage.cacheReadTokens / (r.usage.inputTokens + r.usage.cacheReadTokens + r.usage.cacheWriteTokens)).toBeGreaterThan(0.4);
  });
});

describe('agent loop: every stop ends with a written report (finalTurn)', () => {
  const finalTurn = { instruction: 'Stop now and write your report.', maxTokens: 2048, reserveTokens: 1000 };
  const searchThenReport = () =>
    api.setHandler((req) => (req.body.tool_choice?.type === 'none' ? reply.text('Report: what I found.') : reply.toolUse([{ name: 'lookup', input: { q: 'wind' } }])));

  it.each<[string, Partial<AgentLoopConfig>, string]>([
    ['the budget (tool calls)', { budget: { maxToolCalls: 2 } }, 'budget-stopped'],
    ['the iteration cap', { maxIterations: 2 }, 'iteration-cap'],
    ['the per-step hook (a judge)', { onStep: (s) => (s.stats.requests >= 2 ? { stop: { decisionType: 'loop-judge', level: 'L2', confidence: 0.9, conclusion: 'enough', signals: {} } } : undefined) }, 'step-stopped'],
  ])('after %s: one more request, tools defined but not callable, the thinking sent back as returned', async (_why, over, status) => {
    searchThenReport();
    const r = await loop({ ...over, finalTurn });
    expect(r.status).toBe(status);
    expect(r.finalText).toBe('Report: what I found.');
    expect(r.stats.finalTurns).toBe(1);
    const last = api.accepted.at(-1)!.body;
    expect(last.tool_choice).toEqual({ type: 'none' });
    expect(last.tools.map((t: { name: string }) => t.name)).toEqual(['lookup']);
    // The instruction rides in the last tool result (text after tool results draws an empty end_turn).
    const results = lastMessage(last).content;
    expect(results.map((b: { type: string }) => b.type)).toEqual(['tool_result']);
    expect(results[0].content).toMatch(/Stop now and write your report\.$/);
    expect(last.messages[1].content[0].type).toBe('thinking');
    expect(r.decisions.map((d) => d.decisionType)).toContain('final-report');
    expect(api.rejected).toEqual([]);
  });

  it('without finalTurn a stop ends there, as before; after a deadline no final turn is asked', async () => {
    searchThenReport();
    const plain = await loop({ budget: { maxToolCalls: 2 } });
    expect(plain.stats.finalTurns).toBe(0);
    expect(api.accepted.every((q) => q.body.tool_choice === undefined)).toBe(true);
    api.reset();
    searchThenReport();
    const late = await loop({ budget: { deadlineMs: Date.now() - 1 }, finalTurn });
    expect(late.status).toBe('budget-stopped');
    expect(api.accepted).toHaveLength(0);
  });

  it('a token budget: the loop stops while the final turn still fits, and the whole loop stays within the budget', async () => {
    searchThenReport();
    const maxTokens = 4000;
    const r = await loop({ budget: { maxTokens }, finalTurn });
    expect(r.status).toBe('budget-stopped');
    expect(r.finalText).toBe('Report: what I found.');
    expect(r.usage.inputTokens + r.usage.outputTokens + r.usage.cacheReadTokens + r.usage.cacheWriteTokens).toBeLessThanOrEqual(maxTokens);
    // A budget too small for it: no final turn, said so.
    api.reset();
    searchThenReport();
    const tight = await loop({ budget: { maxTokens: 2500 }, finalTurn: { ...finalTurn, reserveTokens: 1500 } });
    expect(tight.stats.finalTurns).toBe(0);
    expect(tight.decisions.find((d) => d.decisionType === 'final-report')?.signals).toMatchObject({ skipped: true });
  });

  it('task budget: output_config.task_budget on every request, with its beta header (the fake refuses it without)', async () => {
    searchThenReport();
    const r = await loop({ budget: { maxToolCalls: 1 }, finalTurn, taskBudget: 30_000 });
    expect(r.finalText).toBe('Report: what I found.');
    expect(api.accepted).toHaveLength(2);
    for (const q of api.accepted) {
      expect(q.body.output_config.task_budget).toEqual({ type: 'tokens', total: 30_000 });
      expect(String(q.headers['anthropic-beta'])).toContain('task-budgets-2026-03-13');
    }
  });
});
