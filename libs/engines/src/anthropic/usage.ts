import type { TokenUsage } from '@orrery/protocol';

interface ApiUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

export const emptyUsage = (): TokenUsage => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });

/** Adds API usage (or another TokenUsage) into `into`; returns `into`. */
export function addUsage(into: TokenUsage, u: ApiUsage | TokenUsage | undefined | null): TokenUsage {
  if (!u) return into;
  if ('inputTokens' in u) {
    into.inputTokens += u.inputTokens;
    into.outputTokens += u.outputTokens;
    into.cacheReadTokens += u.cacheReadTokens;
    into.cacheWriteTokens += u.cacheWriteTokens;
  } else {
    into.inputTokens += u.input_tokens ?? 0;
    into.outputTokens += u.output_tokens ?? 0;
    into.cacheReadTokens += u.cache_read_input_tokens ?? 0;
    into.cacheWriteTokens += u.cache_creation_input_tokens ?? 0;
  }
  return into;
}
