import { formatZodError } from '@orrery/protocol';
import { z } from 'zod';
import { roundUsd } from '../usage';

/** Dollars per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** 5-minute cache writes; default 1.25 × input. */
  cacheWrite: number;
  /** Cache hits; default 0.1 × input. */
  cacheRead: number;
}

/** The one price table: per-model token prices (matched by model-id prefix, longest first) and per-request tool prices. */
export interface PriceTable {
  models: Record<string, ModelPrice>;
  /** Dollars per 1,000 web searches (billed per search, apart from the result tokens). */
  webSearchPer1k: number;
  /** Dollars per 1,000 web fetches. */
  webFetchPer1k: number;
}

const tier = (input: number, output: number): ModelPrice => ({ input, output, cacheWrite: input * 1.25, cacheRead: input * 0.1 });

/**
 * Defaults from Anthropic's pricing page (platform.claude.com/docs/en/about-claude/pricing): Opus 4.5 and later
 * $5/$25, Sonnet 4.x and 5 $3/$15, Haiku 4.5 $1/$5 per MTok; 5-minute cache writes 1.25× and cache reads 0.1× the
 * input price; web search $10 per 1,000 searches; web fetch costs only its tokens. The 5.5 models were not on the
 * page this table was read from: they take their family's price (Haiku at the Haiku 4.5 price, the higher of the
 * figures seen). Override with ANTHROPIC_PRICES when the bill says otherwise.
 */
export const DEFAULT_PRICES: PriceTable = {
  models: {
    'claude-opus-4-0': tier(15, 75),
    'claude-opus-4-1': tier(15, 75),
    'claude-opus': tier(5, 25),
    'claude-fable': tier(5, 25),
    'claude-mythos': tier(5, 25),
    'claude-sonnet': tier(3, 15),
    'claude-haiku-3': tier(0.25, 1.25),
    'claude-haiku': tier(1, 5),
  },
  webSearchPer1k: 10,
  webFetchPer1k: 0,
};

/** The most expensive known price, for a model no prefix matches: a budget should overestimate, not under. */
const fallbackPrice = (t: PriceTable): ModelPrice =>
  Object.values(t.models).reduce((a, b) => (b.input + b.output > a.input + a.output ? b : a), tier(0, 0));

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
  cacheWriteTokens: number;
  webSearchRequests: number;
  webFetchRequests: number;
}

/** What one response cost, in dollars. */
export function costOf(table: PriceTable, model: string, u: BilledUsage): number {
  const p = priceOf(table, model);
  const tokens = (u.inputTokens * p.input + u.outputTokens * p.output + u.cacheWriteTokens * p.cacheWrite + u.cacheReadTokens * p.cacheRead) / 1e6;
  const tools = (u.webSearchRequests * table.webSearchPer1k + u.webFetchRequests * table.webFetchPer1k) / 1000;
  return roundUsd(tokens + tools);
}

const price = z.number().nonnegative();
const PriceOverrideSchema = z.record(
  z.string().min(1),
  z.strictObject({ input: price, output: price, cacheWrite: price.optional(), cacheRead: price.optional() }),
);

/**
 * The default table with env overrides: ANTHROPIC_PRICES is JSON, `{"claude-sonnet-5-5": {"input": 3, "output": 15}}`
 * (dollars per MTok; cache prices default to 1.25× and 0.1× input); WEB_SEARCH_PRICE_PER_1K and WEB_FETCH_PRICE_PER_1K.
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
      models[model] = { input: p.input, output: p.output, cacheWrite: p.cacheWrite ?? p.input * 1.25, cacheRead: p.cacheRead ?? p.input * 0.1 };
    }
  }
  return {
    models,
    webSearchPer1k: overrides.webSearchPer1k ?? DEFAULT_PRICES.webSearchPer1k,
    webFetchPer1k: overrides.webFetchPer1k ?? DEFAULT_PRICES.webFetchPer1k,
  };
}
