import { z } from 'zod';

const count = z.number().int().nonnegative();

/**
 * What a task, a step or a run consumed. Tokens as the Messages API reports them (`input_tokens` excludes cache reads
 * and writes), server tool requests (web search is billed per request, apart from tokens) and the dollar cost of it
 * all, priced per request where the model is known. Records written before cost was counted read as zero.
 */
export const TokenUsageSchema = z.strictObject({
  inputTokens: count,
  outputTokens: count,
  cacheReadTokens: count,
  cacheWriteTokens: count,
  webSearchRequests: count.default(0),
  webFetchRequests: count.default(0),
  /** Of `outputTokens`, those spent thinking (`usage.output_tokens_details.thinking_tokens`); recorded, not billed again. */
  thinkingTokens: count.optional(),
  costUsd: z.number().nonnegative().default(0),
});
export type TokenUsage = z.infer<typeof TokenUsageSchema>;
