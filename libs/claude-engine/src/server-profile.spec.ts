import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MessagesApi } from './messages-client';
import { resolveOptions } from './options';
import { DEFAULT_PRICES } from './pricing';
import { CLAUDE_PROFILE, LOCAL_PROFILE } from './server-profile';
import { outputFormatFor, unfenced } from './structured';

const api = (profile = LOCAL_PROFILE) => new MessagesApi({ client: new Anthropic({ apiKey: 'k' }), prices: DEFAULT_PRICES, profile });
const send = {
  model: 'qwen3:8b',
  system: 'sys',
  messages: [{ role: 'user' as const, content: 'a' }, { role: 'assistant' as const, content: 'b' }, { role: 'user' as const, content: 'c' }],
  maxTokens: 1000,
  outputFormat: outputFormatFor(z.object({ a: z.string() })),
  effort: 'high' as const,
  thinkingDisplay: 'summarized' as const,
  contextManagement: { triggerInputTokens: 1, keepToolUses: 1, clearAtLeastTokens: 1 },
  label: 't',
};

describe('server profile', () => {
  it('a local server gets no output_config, cache_control, thinking or context_management', () => {
    const p = api().params(send);
    expect(p.output_config).toBeUndefined();
    expect(p.thinking).toBeUndefined();
    expect(JSON.stringify(p)).not.toContain('cache_control');
    expect((p as { context_management?: unknown }).context_management).toBeUndefined();
    const claude = api(CLAUDE_PROFILE).params(send);
    expect(claude.output_config).toMatchObject({ effort: 'high', format: { type: 'json_schema' } });
    expect(JSON.stringify(claude)).toContain('cache_control');
  });

  it("a final turn's tool_choice and a task budget go to Claude's API only, with the task budget's beta", () => {
    const tools = [{ name: 'search_corpus', input_schema: { type: 'object' as const, properties: {} } }];
    const withBoth = { ...send, tools, toolChoice: 'none' as const, taskBudget: 30_000 };
    const local = api().params(withBoth);
    expect(local.tool_choice).toBeUndefined();
    expect(JSON.stringify(local)).not.toContain('task_budget');
    const claude = api(CLAUDE_PROFILE).params(withBoth);
    expect(claude.tool_choice).toEqual({ type: 'none' });
    expect(claude.output_config).toMatchObject({ task_budget: { type: 'tokens', total: 30_000 } });
  });

  it('a server without server tools has web search and fetch off, whatever was asked', () => {
    const o = resolveOptions({ client: { apiKey: 'k' }, profile: LOCAL_PROFILE, webSearch: { enabled: true }, webFetch: { enabled: true } });
    expect(o.webSearch.enabled).toBe(false);
    expect(o.webFetch.enabled).toBe(false);
  });

  it('reads JSON a local model fenced anyway', () => {
    expect(unfenced('```json\n{"a": 1}\n```')).toBe('{"a": 1}');
    expect(unfenced('  {"a": 1} ')).toBe('{"a": 1}');
  });
});
