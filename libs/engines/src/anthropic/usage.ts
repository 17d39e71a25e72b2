import type { Usage } from '@anthropic-ai/sdk/resources/messages';
import type { TokenUsage } from '@orrery/protocol';
import { costOf, type PriceTable } from './pricing';

/**
 * One response's usage, priced. `input_tokens` excludes cache reads and writes (Usage in the SDK types);
 * `server_tool_use` counts the web searches and fetches billed apart from tokens.
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
  return { ...billed, costUsd: costOf(prices, model, billed) };
}
