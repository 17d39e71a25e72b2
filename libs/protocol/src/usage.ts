import { z } from 'zod';

const count = z.number().int().nonnegative();
const usd = z.number().nonnegative();

/** Where a run spends: the phases a bill is broken down by. */
export const SpendPhaseSchema = z.enum(['plan', 'research', 'extraction', 'writing', 'judging']);
export type SpendPhase = z.infer<typeof SpendPhaseSchema>;

/** Dollars per billed item, as Perplexity's `usage.cost` lists them: tokens by kind, and tool requests. */
export const CostItemsSchema = z.strictObject({
  input: usd,
  output: usd,
  cacheRead: usd,
  cacheWrite: usd,
  webSearch: usd,
  webFetch: usd,
});
export type CostItems = z.infer<typeof CostItemsSchema>;

/**
 * One (phase, model) line of a usage record: what the requests to that model in that phase consumed and cost, item by
 * item, and what the same requests would have cost with no cache (every cache read and write at the input price).
 * The phase is unset until the step that spent it says which (see `inPhase`).
 */
export const UsageLineSchema = z.strictObject({
  phase: SpendPhaseSchema.optional(),
  model: z.string().min(1).max(200),
  inputTokens: count,
  outputTokens: count,
  cacheReadTokens: count,
  cacheWriteTokens: count,
  webSearchRequests: count,
  webFetchRequests: count,
  cost: CostItemsSchema,
  costUsd: usd,
  uncachedUsd: usd,
});
export type UsageLine = z.infer<typeof UsageLineSchema>;

/**
 * What a task, a step or a run consumed. Tokens as the Messages API reports them (`input_tokens` excludes cache reads
 * and writes), server tool requests (web search is billed per request, apart from tokens) and the dollar cost of it
 * all, priced per request where the model is known. Records written before cost was counted read as zero; records
 * written before the bill have no `lines`.
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
  costUsd: usd.default(0),
  /** The same usage itemised per (phase, model): what the bill is made from. */
  lines: z.array(UsageLineSchema).max(200).optional(),
});
export type TokenUsage = z.infer<typeof TokenUsageSchema>;

const amount = z.strictObject({ usd, tokens: count });
/**
 * A run's (or a list of runs') itemised bill. `byPhase`, `byModel` and `byItem` each add up to `totalUsd` (to a
 * micro-dollar before rounding); spend recorded before the bill existed is `unattributedUsd` in each. `cache` says
 * what the cache saved against uncached prices (negative when writes cost more than reads saved).
 */
export const BillSchema = z.strictObject({
  totalUsd: usd,
  /** Phases that spent nothing are left out. */
  byPhase: z.partialRecord(SpendPhaseSchema, amount),
  byModel: z.record(z.string(), amount),
  byItem: CostItemsSchema,
  tools: z.strictObject({ webSearches: z.strictObject({ count, usd }), webFetches: z.strictObject({ count, usd }) }),
  cache: z.strictObject({ readTokens: count, writeTokens: count, uncachedUsd: usd, savedUsd: z.number() }),
  unattributedUsd: usd,
});
export type Bill = z.infer<typeof BillSchema>;
