import { describe, expect, it } from 'vitest';
import { costOf, DEFAULT_PRICES, priceOf, priceTable } from './pricing';
import { usageOf } from './usage';

const M = 1_000_000;
const none = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, webSearchRequests: 0, webFetchRequests: 0 };
/** A million of each kind of token, priced: the table's rates summed, to the cent. */
const rates = (model: string) => ({
  input: costOf(DEFAULT_PRICES, model, { ...none, inputTokens: M }),
  output: costOf(DEFAULT_PRICES, model, { ...none, outputTokens: M }),
  write5m: costOf(DEFAULT_PRICES, model, { ...none, cacheWriteTokens: M / 20 }) * 20,
  write1h: costOf(DEFAULT_PRICES, model, { ...none, cacheWriteTokens: M / 20, cacheWrite1hTokens: M / 20 }) * 20,
  read: costOf(DEFAULT_PRICES, model, { ...none, cacheReadTokens: M / 20 }) * 20,
});

describe('prices as published (per million tokens)', () => {
  it('Opus 5.5: $4 / $20, 5-minute writes $5, 1-hour writes $8, cache reads $0.20 (0.05×)', () => {
    expect(rates('claude-opus-5-5')).toEqual({ input: 4, output: 20, write5m: 5, write1h: 8, read: 0.2 });
  });
  it('Sonnet 5.5: $2 / $10, writes $2.50 / $4, cache reads $0.10 since 2026-10-07', () => {
    expect(rates('claude-sonnet-5-5')).toEqual({ input: 2, output: 10, write5m: 2.5, write1h: 4, read: 0.1 });
  });
  it('Haiku 5.5 up to 100k prompt tokens: $0.10 / $0.50, writes $0.125 / $0.20, reads $0.01', () => {
    expect(costOf(DEFAULT_PRICES, 'claude-haiku-5-5', { ...none, inputTokens: 100_000 })).toBeCloseTo(0.01, 6);
    expect(costOf(DEFAULT_PRICES, 'claude-haiku-5-5', { ...none, inputTokens: 50_000, outputTokens: 10_000 })).toBeCloseTo(0.005 + 0.005, 6);
    const p = priceOf(DEFAULT_PRICES, 'claude-haiku-5-5');
    expect([p.input, p.output, p.cacheWrite5m, p.cacheWrite1h, p.cacheRead]).toEqual([0.1, 0.5, 0.125, 0.2, 0.01]);
  });
  it('Haiku 5.5 over 100k prompt tokens (cache reads and writes count): $0.50 / $2.50 on every token of that request', () => {
    // 60k fresh + 50k read = 110k prompt: the whole request, output too, pays the long-prompt band.
    const u = { ...none, inputTokens: 60_000, cacheReadTokens: 50_000, outputTokens: 1000 };
    expect(costOf(DEFAULT_PRICES, 'claude-haiku-5-5', u)).toBeCloseTo((60_000 * 0.5 + 50_000 * 0.05 + 1000 * 2.5) / M, 6);
    const w = { ...none, inputTokens: 1000, cacheWriteTokens: 100_000, cacheWrite1hTokens: 100_000 };
    expect(costOf(DEFAULT_PRICES, 'claude-haiku-5-5', w)).toBeCloseTo((1000 * 0.5 + 100_000 * 1) / M, 6);
  });
  it('Fable and Mythos 5.1: $10 / $50, writes $12.50 / $20, reads $0.25; Fable and Mythos 5: reads $1', () => {
    for (const m of ['claude-fable-5-1', 'claude-mythos-5-1']) expect(rates(m)).toEqual({ input: 10, output: 50, write5m: 12.5, write1h: 20, read: 0.25 });
    for (const m of ['claude-fable-5', 'claude-mythos-5']) expect(rates(m)).toEqual({ input: 10, output: 50, write5m: 12.5, write1h: 20, read: 1 });
  });
  it('older models keep theirs: Opus 5 $5 / $25 (reads $0.50), Sonnet 5 reads $0.20, Sonnet 4.x $3 / $15, Haiku 4.5 $1 / $5, Opus 4.1 $15 / $75', () => {
    expect(rates('claude-opus-5')).toEqual({ input: 5, output: 25, write5m: 6.25, write1h: 10, read: 0.5 });
    expect(rates('claude-sonnet-5').read).toBe(0.2);
    expect(rates('claude-sonnet-4-5-20250929')).toMatchObject({ input: 3, output: 15 });
    expect(rates('claude-haiku-4-5')).toMatchObject({ input: 1, output: 5, write1h: 2, read: 0.1 });
    expect(rates('claude-opus-4-1')).toMatchObject({ input: 15, output: 75 });
  });
  it('batch requests pay half of every token price; web searches stay $10 per 1,000', () => {
    const u = { ...none, inputTokens: M, outputTokens: M, webSearchRequests: 10 };
    expect(costOf(DEFAULT_PRICES, 'claude-opus-5-5', { ...u, serviceTier: 'batch' })).toBeCloseTo(12 + 0.1, 6);
    expect(costOf(DEFAULT_PRICES, 'claude-opus-5-5', { ...u, serviceTier: 'standard' })).toBeCloseTo(24 + 0.1, 6);
  });
  it("prices a response's usage as the SDK reports it: 1-hour writes from cache_creation, thinking tokens recorded inside output", () => {
    const u = usageOf(
      {
        input_tokens: 1000,
        output_tokens: 3000,
        cache_read_input_tokens: 10_000,
        cache_creation_input_tokens: 4000,
        cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 3000 },
        output_tokens_details: { thinking_tokens: 2000 },
        service_tier: 'standard',
      },
      'claude-sonnet-5-5',
      DEFAULT_PRICES,
    );
    expect(u.thinkingTokens).toBe(2000);
    expect(u.costUsd).toBeCloseTo((1000 * 2 + 3000 * 10 + 10_000 * 0.1 + 1000 * 2.5 + 3000 * 4) / M, 6);
  });
  it('an unknown model is priced at the dearest known price; overrides take 5-minute and 1-hour writes', () => {
    expect(priceOf(DEFAULT_PRICES, 'claude-unknown-9').input).toBe(15);
    const t = priceTable({ prices: '{"m-x": {"input": 2, "output": 8, "cacheWrite1h": 5}}' });
    expect(t.models['m-x']).toEqual({ input: 2, output: 8, cacheWrite5m: 2.5, cacheWrite1h: 5, cacheRead: 0.2 });
  });
});
