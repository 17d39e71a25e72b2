import { type CostItems, formatZodError } from '@orrery/protocol';
import { z } from 'zod';
import { roundUsd } from '@orrery/engine';

/** One band of a model's prices, in dollars per million tokens. */
export interface PriceBand {
  input: number;
  output: number;
  /** 5-minute cache writes (`usage.cache_creation.ephemeral_5m_input_tokens`). */
  cacheWrite5m: number;
  /** 1-hour cache writes (`usage.cache_creation.ephemeral_1h_input_tokens`). */
  cacheWrite1h: number;
  /** Cache hits and refreshes. */
  cacheRead: number;
}

/** A model's prices: one band, or (Haiku 5.5) a second band for requests whose prompt is over `threshold` tokens. */
export interface ModelPrice extends PriceBand {
  /** Applies to every token of a request (output included) whose prompt (input + cache reads + writes) is over `threshold`. */
  longPrompt?: PriceBand & { threshold: number };
}

/** The one price table: per-model token prices (matched by model-id prefix, longest first) and per-request tool prices. */
export interface PriceTable {
  models: Record<string, ModelPrice>;
  /** Dollars per 1,000 web searches (billed per search, apart from the result tokens). */
  webSearchPer1k: number;
  /** Dollars per 1,000 web fetches. */
  webFetchPer1k: number;
}

const band = (input: number, output: number, cacheWrite5m: number, cacheWrite1h: number, cacheRead: number): PriceBand => ({
  input,
  output,
  cacheWrite5m,
  cacheWrite1h,
  cacheRead,
});
/** A model priced at the standard cache multipliers: 5-minute writes 1.25×, 1-hour writes 2×, reads 0.1× the input price. */
const standard = (input: number, output: number): PriceBand => band(input, output, input * 1.25, input * 2, input * 0.1);

/**
 * Published prices, per model id (prefix match, so dated ids find theirs; the longest prefix wins). Sources, read
 * 2026-12-01:
 * - Opus 5.5: platform.claude.com/docs/en/models/opus-5-5/overview, "Pricing": $4 / $20, 5m writes $5, 1h writes $8,
 *   cache reads $0.20 (0.05×, not the standard 0.1×).
 * - Sonnet 5.5: platform.claude.com/docs/en/models/sonnet-5-5/overview and the pricing page
 *   (platform.claude.com/docs/en/about-claude/pricing): $2 / $10, 5m writes $2.50, 1h writes $4; cache reads cut from
 *   $0.20 to $0.10 on 2026-10-07 (pricing page; the model page still showed $0.20 when read).
 * - Haiku 5.5: platform.claude.com/docs/en/models/haiku-5-5/overview, "Pricing": for prompts up to 100,000 tokens
 *   $0.10 / $0.50, 5m writes $0.125, 1h writes $0.20, reads $0.01; over 100,000 tokens $0.50 / $2.50, $0.625, $1.00,
 *   $0.05, on every token of that request (the prompt counts cache reads and writes).
 * - Fable 5.1 and Mythos 5.1: pricing page, "Model pricing": $10 / $50, 5m $12.50, 1h $20, reads $0.25. Fable 5 and
 *   Mythos 5: the same but reads $1.
 * - Opus 5 and Opus 4.5–4.8: $5 / $25, 5m $6.25, 1h $10, reads $0.50; Opus 4 / 4.1: $15 / $75 (pricing page).
 * - Sonnet 5: $2 / $10, reads $0.20 (models/sonnet-5/overview); Sonnet 4.x: $3 / $15; Haiku 4.5: $1 / $5; Haiku 3.5
 *   $0.80 / $4; Haiku 3 $0.25 / $1.25 (pricing page), all at the standard multipliers.
 * Web search $10 per 1,000 searches; web fetch costs only its tokens (pricing page, "Tool use pricing").
 * Override with ANTHROPIC_PRICES when the bill says otherwise.
 */
export const DEFAULT_PRICES: PriceTable = {
  models: {
    'claude-fable-5-1': band(10, 50, 12.5, 20, 0.25),
    'claude-mythos-5-1': band(10, 50, 12.5, 20, 0.25),
    'claude-fable-5': band(10, 50, 12.5, 20, 1),
    'claude-mythos-5': band(10, 50, 12.5, 20, 1),
    'claude-opus-5-5': band(4, 20, 5, 8, 0.2),
    'claude-opus-5': band(5, 25, 6.25, 10, 0.5),
    'claude-opus-4-8': band(5, 25, 6.25, 10, 0.5),
    'claude-opus-4-7': band(5, 25, 6.25, 10, 0.5),
    'claude-opus-4-6': band(5, 25, 6.25, 10, 0.5),
    'claude-opus-4-5': band(5, 25, 6.25, 10, 0.5),
    'claude-opus-4': standard(15, 75),
    'claude-sonnet-5-5': band(2, 10, 2.5, 4, 0.1),
    'claude-sonnet-5': band(2, 10, 2.5, 4, 0.2),
    'claude-sonnet-4': standard(3, 15),
    'claude-haiku-5-5': { ...band(0.1, 0.5, 0.125, 0.2, 0.01), longPrompt: { threshold: 100_000, ...band(0.5, 2.5, 0.625, 1, 0.05) } },
    'claude-haiku-4-5': standard(1, 5),
    'claude-3-5-haiku': standard(0.8, 4),
    'claude-haiku-3-5': standard(0.8, 4),
    'claude-3-haiku': standard(0.25, 1.25),
    'claude-haiku-3': standard(0.25, 1.25),
  },
  webSearchPer1k: 10,
  webFetchPer1k: 0,
};

/** The most expensive known price, for a model no prefix matches: a budget should overestimate, not under. */
const fallbackPrice = (t: PriceTable): ModelPrice =>
  Object.values(t.models).reduce((a, b) => (b.input + b.output > a.input + a.output ? b : a), standard(0, 0));

export function priceOf(table: PriceTable, model: string): ModelPrice {
  const key = Object.keys(table.models)
    .filter((k) => model.startsWith(k))
    .sort((a, b) => b.length - a.length)[0];
  return key ? table.models[key]! : fallbackPrice(table);
}

export interface BilledUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  /** Every cache write; `cacheWrite1hTokens` of them were 1-hour writes, the rest 5-minute ones. */
  cacheWriteTokens: number;
  cacheWrite1hTokens?: number;
  webSearchRequests: number;
  webFetchRequests: number;
  /** `usage.service_tier`: `batch` is half price on every token (pricing page, "Batch processing"). */
  serviceTier?: 'standard' | 'priority' | 'batch' | null;
}

/** The band one request pays: the long-prompt band when its prompt is over the model's threshold. */
export function bandOf(p: ModelPrice, u: Pick<BilledUsage, 'inputTokens' | 'cacheReadTokens' | 'cacheWriteTokens'>): PriceBand {
  const prompt = u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
  return p.longPrompt && prompt > p.longPrompt.threshold ? p.longPrompt : p;
}

/**
 * What one response cost, in dollars. Priced per request, as the API bills: the prompt-length band is the request's.
 * Batch halves every token price (the Batch API discount stacks with the cache multipliers: pricing page, "Batch
 * processing"). The priority tier is billed under a commitment, not per token, so it is priced as standard here.
 */
export function costOf(table: PriceTable, model: string, u: BilledUsage): number {
  const c = costItemsOf(table, model, u);
  return roundUsd(c.input + c.output + c.cacheRead + c.cacheWrite + c.webSearch + c.webFetch);
}

/** `costOf`, item by item (unrounded): tokens by kind, then web searches and fetches. */
export function costItemsOf(table: PriceTable, model: string, u: BilledUsage): CostItems {
  const p = bandOf(priceOf(table, model), u);
  const oneHour = Math.min(u.cacheWrite1hTokens ?? 0, u.cacheWriteTokens);
  const tier = u.serviceTier === 'batch' ? 0.5 : 1;
  return {
    input: (u.inputTokens * p.input * tier) / 1e6,
    output: (u.outputTokens * p.output * tier) / 1e6,
    cacheRead: (u.cacheReadTokens * p.cacheRead * tier) / 1e6,
    cacheWrite: (((u.cacheWriteTokens - oneHour) * p.cacheWrite5m + oneHour * p.cacheWrite1h) * tier) / 1e6,
    webSearch: (u.webSearchRequests * table.webSearchPer1k) / 1000,
    webFetch: (u.webFetchRequests * table.webFetchPer1k) / 1000,
  };
}

/** What the same request would have cost with no cache: every cache read and write priced as fresh input. */
export function uncachedCostOf(table: PriceTable, model: string, u: BilledUsage): number {
  return costOf(table, model, { ...u, inputTokens: u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens, cacheReadTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0 });
}

const price = z.number().nonnegative();
const PriceOverrideSchema = z.record(
  z.string().min(1),
  z.strictObject({
    input: price,
    output: price,
    /** 5-minute writes; `cacheWrite` is the older name. */
    cacheWrite: price.optional(),
    cacheWrite5m: price.optional(),
    cacheWrite1h: price.optional(),
    cacheRead: price.optional(),
  }),
);

/**
 * The default table with env overrides: ANTHROPIC_PRICES is JSON, `{"claude-sonnet-5-5": {"input": 2, "output": 10}}`
 * (dollars per MTok; cache prices default to the standard multipliers: 1.25× and 2× input for 5-minute and 1-hour
 * writes, 0.1× for reads); WEB_SEARCH_PRICE_PER_1K and WEB_FETCH_PRICE_PER_1K. An override replaces the model's whole
 * entry, long-prompt band included.
 */
export function priceTable(overrides: { prices?: string; webSearchPer1k?: number; webFetchPer1k?: number } = {}): PriceTable {
  const models = { ...DEFAULT_PRICES.models };
  if (overrides.prices?.trim()) {
    let json: unknown;
    try {
      json = JSON.parse(overrides.prices);
    } catch (err) {
      throw new Error(`ANTHROPIC_PRICES: not JSON (${(err as Error).message})`);
    }
    const parsed = PriceOverrideSchema.safeParse(json);
    if (!parsed.success) throw new Error(`ANTHROPIC_PRICES: ${formatZodError(parsed.error)}`);
    for (const [model, p] of Object.entries(parsed.data)) {
      const s = standard(p.input, p.output);
      models[model] = band(p.input, p.output, p.cacheWrite5m ?? p.cacheWrite ?? s.cacheWrite5m, p.cacheWrite1h ?? s.cacheWrite1h, p.cacheRead ?? s.cacheRead);
    }
  }
  return {
    models,
    webSearchPer1k: overrides.webSearchPer1k ?? DEFAULT_PRICES.webSearchPer1k,
    webFetchPer1k: overrides.webFetchPer1k ?? DEFAULT_PRICES.webFetchPer1k,
  };
}

/** A server whose tokens cost nothing (a local model): every model at 0. */
export const FREE_PRICES: PriceTable = { models: {}, webSearchPer1k: 0, webFetchPer1k: 0 };
