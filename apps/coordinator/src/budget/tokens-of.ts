import type { TokenUsage } from '@orrery/protocol';

/**
 * Tokens a usage record counts against the budget: input + output + cache reads + cache writes
 * (every token the model processed; cache reads are cheaper but still bounded by the budget).
 * A plain number is taken as already counted. Negative or non-finite counts count as 0.
 */
export function tokensOf(usage: TokenUsage | number): number {
  const n = typeof usage === 'number' ? usage : usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  return Number.isFinite(n) && n > 0 ? n : 0;
}

/** Dollars a usage record counts against the budget (a plain number counts as tokens, so none). */
export function costOf(usage: TokenUsage | number): number {
  const n = typeof usage === 'number' ? 0 : (usage.costUsd ?? 0);
  return Number.isFinite(n) && n > 0 ? n : 0;
}
