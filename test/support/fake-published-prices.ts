/**
 * What the fake Messages API's usage costs at the published prices, computed apart from the engine's own table so a
 * test can hold the engine's reported cost against it. Dollars per million tokens, for the models Orrery names by
 * default, from their model pages (platform.claude.com/docs/en/models/<model>/overview, "Pricing") and the pricing page
 * (platform.claude.com/docs/en/about-claude/pricing):
 * - claude-opus-5-5: $4 in, $20 out, 5-minute cache writes $5, 1-hour writes $8, cache reads $0.20;
 * - claude-sonnet-5-5: $2 / $10, writes $2.50 / $4, reads $0.10 (cut from $0.20 on 2026-10-07, pricing page);
 * - claude-haiku-5-5: $0.10 / $0.50, writes $0.125 / $0.20, reads $0.01 for a prompt (input + cache reads + writes) up
 *   to 100,000 tokens; $0.50 / $2.50, $0.625 / $1.00, $0.05 on every token of a request whose prompt is longer.
 * Web search: $10 per 1,000 searches (pricing page, "Web search tool").
 */

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

interface Band {
  input: number;
  output: number;
  write5m: number;
  write1h: number;
  read: number;
}
const PUBLISHED: Record<string, { base: Band; over100k?: Band }> = {
  'claude-opus-5-5': { base: { input: 4, output: 20, write5m: 5, write1h: 8, read: 0.2 } },
  'claude-sonnet-5-5': { base: { input: 2, output: 10, write5m: 2.5, write1h: 4, read: 0.1 } },
  'claude-haiku-5-5': {
    base: { input: 0.1, output: 0.5, write5m: 0.125, write1h: 0.2, read: 0.01 },
    over100k: { input: 0.5, output: 2.5, write5m: 0.625, write1h: 1, read: 0.05 },
  },
};

/** The published price of one response's `usage` (the SDK's Usage shape) on `model`; throws for a model not listed. */
export function publishedCost(model: string, usage: Json): number {
  const entry = PUBLISHED[model];
  if (!entry) throw new Error(`no published price recorded in the fake for ${model}`);
  const input = usage.input_tokens ?? 0;
  const read = usage.cache_read_input_tokens ?? 0;
  const written = usage.cache_creation_input_tokens ?? 0;
  const oneHour = usage.cache_creation?.ephemeral_1h_input_tokens ?? 0;
  const p = entry.over100k && input + read + written > 100_000 ? entry.over100k : entry.base;
  const tokens = input * p.input + (usage.output_tokens ?? 0) * p.output + (written - oneHour) * p.write5m + oneHour * p.write1h + read * p.read;
  return tokens / 1e6 + ((usage.server_tool_use?.web_search_requests ?? 0) * 10) / 1000;
}
