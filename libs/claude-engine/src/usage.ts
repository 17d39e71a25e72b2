import type { Usage } from '@anthropic-ai/sdk/resources/messages';
import type { TokenUsage } from '@orrery/protocol';
import { costItemsOf, costOf, type PriceTable, uncachedCostOf } from './pricing';
import { roundUsd } from '@orrery/engine';

/**
 * One response's usage, priced. `input_tokens` excludes cache reads and writes (Usage in the SDK types);
 * `cache_creation` splits the writes into 5-minute and 1-hour ones (CacheCreation); `service_tier` says whether the
 * batch discount applies; `output_tokens_details.thinking_tokens` is the part of `output_tokens` spent thinking
 * (OutputTokensDetails: already inside `output_tokens`, so it is recorded, never billed twice); `server_tool_use`
 * counts the web searches and fetches billed apart from tokens.
 */
export function usageOf(u: Partial<Usage> | undefined | null, model: string, prices: PriceTable): TokenUsage {
  const billed = {
    inputTokens: u?.input_tokens ?? 0,
    outputTokens: u?.output_tokens ?? 0,
    cacheReadTokens: u?.cache_read_input_tokens ?? 0,
    cacheWriteTokens: u?.cache_creation_input_tokens ?? 0,
    webSearchRequests: u?.server_tool_use?.web_search_requests ?? 0,
    webFetchRequests: u?.server_tool_use?.web_fetch_requests ?? 0,
  };
  const priced = { ...billed, cacheWrite1hTokens: u?.cache_creation?.ephemeral_1h_input_tokens ?? 0, serviceTier: u?.service_tier ?? null };
  const cost = costOf(prices, model, priced);
  const items = costItemsOf(prices, model, priced);
  const itemised = Object.fromEntries(Object.entries(items).map(([k, v]) => [k, roundUsd(v)])) as typeof items;
  const line = { model, ...billed, cost: itemised, costUsd: cost, uncachedUsd: uncachedCostOf(prices, model, priced) };
  const thinking = u?.output_tokens_details?.thinking_tokens;
  return { ...billed, ...(thinking ? { thinkingTokens: thinking } : {}), costUsd: cost, lines: [line] };
}
