import { type Bill, type CostItems, SpendPhaseSchema, type TokenUsage } from '@orrery/protocol';
import { roundUsd } from './usage';

const ITEMS = ['input', 'output', 'cacheRead', 'cacheWrite', 'webSearch', 'webFetch'] as const;
const tokensOf = (l: Pick<TokenUsage, 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens'>) => l.inputTokens + l.outputTokens + l.cacheReadTokens + l.cacheWriteTokens;

/**
 * A usage record's itemised bill: by phase, by model and by item, each adding up to the total, and the cache's saving
 * against uncached prices. Spend recorded without lines (before the bill, or by an engine that prices none) is
 * `unattributed` in every breakdown, so the parts still add up.
 */
export function billOf(u: TokenUsage): Bill {
  const lines = u.lines ?? [];
  const byPhase: Bill['byPhase'] = {};
  const byModel: Bill['byModel'] = {};
  const byItem = Object.fromEntries(ITEMS.map((k) => [k, 0])) as CostItems;
  let uncached = 0;
  let attributed = 0;
  for (const l of lines) {
    const phase = l.phase ?? 'research';
    const p = (byPhase[phase] ??= { usd: 0, tokens: 0 });
    p.usd = roundUsd(p.usd + l.costUsd);
    p.tokens += tokensOf(l);
    const m = (byModel[l.model] ??= { usd: 0, tokens: 0 });
    m.usd = roundUsd(m.usd + l.costUsd);
    m.tokens += tokensOf(l);
    for (const k of ITEMS) byItem[k] = roundUsd(byItem[k] + l.cost[k]);
    uncached += l.uncachedUsd;
    attributed += l.costUsd;
  }
  const unattributedUsd = roundUsd(Math.max(0, u.costUsd - attributed));
  const saved = lines.reduce((s, l) => s + l.uncachedUsd - l.costUsd, 0);
  return {
    totalUsd: roundUsd(u.costUsd),
    // In the order a run goes through them, whatever order the lines came in.
    byPhase: Object.fromEntries(SpendPhaseSchema.options.flatMap((p) => (byPhase[p] ? [[p, byPhase[p]]] : []))),
    byModel,
    byItem,
    tools: {
      webSearches: { count: u.webSearchRequests, usd: byItem.webSearch },
      webFetches: { count: u.webFetchRequests, usd: byItem.webFetch },
    },
    cache: { readTokens: u.cacheReadTokens, writeTokens: u.cacheWriteTokens, uncachedUsd: roundUsd(uncached + unattributedUsd), savedUsd: roundUsd(saved) },
    unattributedUsd,
  };
}

/** The sum of several bills (the runs a list shows). */
export function sumBills(bills: readonly Bill[]): Bill {
  const out = billOf({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, webSearchRequests: 0, webFetchRequests: 0, costUsd: 0 });
  const add = (into: Record<string, { usd: number; tokens: number }>, from: Record<string, { usd: number; tokens: number } | undefined>) => {
    for (const [k, v] of Object.entries(from)) {
      if (!v) continue;
      const t = (into[k] ??= { usd: 0, tokens: 0 });
      t.usd = roundUsd(t.usd + v.usd);
      t.tokens += v.tokens;
    }
  };
  for (const b of bills) {
    out.totalUsd = roundUsd(out.totalUsd + b.totalUsd);
    add(out.byPhase, b.byPhase);
    add(out.byModel, b.byModel);
    for (const k of ITEMS) out.byItem[k] = roundUsd(out.byItem[k] + b.byItem[k]);
    out.tools.webSearches.count += b.tools.webSearches.count;
    out.tools.webFetches.count += b.tools.webFetches.count;
    out.cache.readTokens += b.cache.readTokens;
    out.cache.writeTokens += b.cache.writeTokens;
    out.cache.uncachedUsd = roundUsd(out.cache.uncachedUsd + b.cache.uncachedUsd);
    out.cache.savedUsd = roundUsd(out.cache.savedUsd + b.cache.savedUsd);
    out.unattributedUsd = roundUsd(out.unattributedUsd + b.unattributedUsd);
  }
  out.tools.webSearches.usd = out.byItem.webSearch;
  out.tools.webFetches.usd = out.byItem.webFetch;
  return out;
}

/** The bill's biggest phase, by dollars or by tokens (ties to the other): the one a budget warning names as spending. */
export function topPhase(b: Bill, by: 'usd' | 'tokens'): string | undefined {
  const other = by === 'usd' ? 'tokens' : 'usd';
  return Object.entries(b.byPhase)
    .filter(([, v]) => (v?.usd ?? 0) > 0 || (v?.tokens ?? 0) > 0)
    .sort((x, y) => (y[1]?.[by] ?? 0) - (x[1]?.[by] ?? 0) || (y[1]?.[other] ?? 0) - (x[1]?.[other] ?? 0))[0]?.[0];
}

/** Lines for people: the total, then phase by phase, model by model, tools, and the cache's saving. */
export function describeBill(b: Bill): string[] {
  const $ = (x: number) => `$${x.toFixed(4)}`;
  const parts = (r: Record<string, { usd: number } | undefined>) =>
    Object.entries(r)
      .map(([k, v]) => `${k} ${$(v?.usd ?? 0)}`)
      .join(', ');
  const unattributed = b.unattributedUsd ? `, unattributed ${$(b.unattributedUsd)}` : '';
  return [
    `Total ${$(b.totalUsd)}`,
    `By phase: ${parts(b.byPhase) || 'none'}${unattributed}`,
    `By model: ${parts(b.byModel) || 'none'}${unattributed}`,
    `Web: ${b.tools.webSearches.count} searches ${$(b.tools.webSearches.usd)}, ${b.tools.webFetches.count} fetches ${$(b.tools.webFetches.usd)}`,
    `Cache: saved ${$(b.cache.savedUsd)} against ${$(b.cache.uncachedUsd)} uncached`,
  ];
}
