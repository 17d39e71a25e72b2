import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICES } from './pricing';
import { usageOf } from './usage';
import { billOf, describeBill, sumBills, topPhase, addUsage, emptyUsage, inPhase } from '@orrery/engine';

const sum = (r: Record<string, { usd: number } | undefined>) => Object.values(r).reduce((s, v) => s + (v?.usd ?? 0), 0);

/** A small run as the steps record it: plan, two researchers with web tools, their extraction and judge, the writer. */
function run() {
  const u = emptyUsage();
  const res = (input: number, read: number, searches: number) =>
    usageOf({ input_tokens: input, output_tokens: 900, cache_read_input_tokens: read, cache_creation_input_tokens: 2000, server_tool_use: { web_search_requests: searches, web_fetch_requests: 1 } }, 'claude-sonnet-5-5', DEFAULT_PRICES);
  addUsage(u, inPhase(usageOf({ input_tokens: 3000, output_tokens: 1200 }, 'claude-opus-5-5', DEFAULT_PRICES), 'plan'));
  for (const searches of [3, 5]) {
    // A search task's usage as the subagent returns it: extraction and the loop judge tagged, the loop not yet.
    const task = addUsage(addUsage(res(4000, 30_000, searches), inPhase(usageOf({ input_tokens: 8000, output_tokens: 2000 }, 'claude-haiku-5-5', DEFAULT_PRICES), 'extraction')), inPhase(usageOf({ input_tokens: 500, output_tokens: 50 }, 'claude-haiku-5-5', DEFAULT_PRICES), 'judging'));
    addUsage(u, inPhase(task, 'research'));
  }
  addUsage(u, inPhase(usageOf({ input_tokens: 12_000, output_tokens: 4000, cache_read_input_tokens: 20_000 }, 'claude-opus-5-5', DEFAULT_PRICES), 'writing'));
  return u;
}

describe('the itemised bill', () => {
  it('breaks a run down by phase, by model and by item, each adding up to the total within a cent', () => {
    const u = run();
    const b = billOf(u);
    expect(Object.keys(b.byPhase).sort()).toEqual(['extraction', 'judging', 'plan', 'research', 'writing']);
    expect(Object.keys(b.byModel).sort()).toEqual(['claude-haiku-5-5', 'claude-opus-5-5', 'claude-sonnet-5-5']);
    expect(b.totalUsd).toBeGreaterThan(0.05);
    expect(Math.abs(sum(b.byPhase) - b.totalUsd)).toBeLessThan(0.01);
    expect(Math.abs(sum(b.byModel) - b.totalUsd)).toBeLessThan(0.01);
    expect(Math.abs(Object.values(b.byItem).reduce((s, x) => s + x, 0) - b.totalUsd)).toBeLessThan(0.01);
    expect(b.unattributedUsd).toBe(0);
    // 8 searches at $10 per 1,000, 2 fetches at the table's price.
    expect(b.tools.webSearches).toEqual({ count: 8, usd: 0.08 });
    expect(b.tools.webFetches.count).toBe(2);
    expect(b.byPhase.research!.usd).toBeGreaterThanOrEqual(0.08);
  });

  it("prices the cache's saving against uncached prices: reads at the input price, writes too", () => {
    const u = usageOf({ input_tokens: 1000, output_tokens: 0, cache_read_input_tokens: 100_000 }, 'claude-sonnet-5-5', DEFAULT_PRICES);
    const b = billOf(u);
    // 100k reads at $0.10 instead of $2 per MTok: $0.19 saved.
    expect(b.cache.uncachedUsd).toBeCloseTo((101_000 * 2) / 1e6, 6);
    expect(b.cache.savedUsd).toBeCloseTo((100_000 * 1.9) / 1e6, 6);
  });

  it('counts a record from before the bill as unattributed in every breakdown, so the parts still add up', () => {
    const old = { ...emptyUsage(), inputTokens: 10, costUsd: 0.42 };
    const b = billOf(addUsage(old, inPhase(usageOf({ input_tokens: 1000, output_tokens: 100 }, 'claude-opus-5-5', DEFAULT_PRICES), 'plan')));
    expect(b.unattributedUsd).toBeCloseTo(0.42, 6);
    expect(sum(b.byPhase) + b.unattributedUsd).toBeCloseTo(b.totalUsd, 6);
    expect(describeBill(b).join('\n')).toContain('unattributed $0.4200');
  });

  it('sums the bills of a list of runs', () => {
    const a = billOf(run());
    const s = sumBills([a, a]);
    expect(s.totalUsd).toBeCloseTo(2 * a.totalUsd, 6);
    expect(s.byPhase.plan!.usd).toBeCloseTo(2 * a.byPhase.plan!.usd, 6);
    expect(s.tools.webSearches).toEqual({ count: 16, usd: 0.16 });
    expect(Math.abs(sum(s.byPhase) - s.totalUsd)).toBeLessThan(0.01);
  });

  it('names the phase spending most, by dollars or by tokens', () => {
    const b = billOf(run());
    const dearest = Object.entries(b.byPhase).sort((x, y) => y[1]!.usd - x[1]!.usd)[0]![0];
    expect(topPhase(b, 'usd')).toBe(dearest);
    expect(topPhase(b, 'tokens')).toBe('research');
    expect(topPhase(billOf(emptyUsage()), 'usd')).toBeUndefined();
  });
});
