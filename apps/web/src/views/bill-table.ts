import type { Bill } from '@orrery/protocol';
import { h } from '../dom.js';
import { count, tokens } from '../format.js';

/** Dollars to a hundredth of a cent: a bill's lines are often under a cent. */
const usd = (x: number): string => `${x < 0 ? '−' : ''}$${Math.abs(x).toFixed(4)}`;

/**
 * The run's itemised bill: what each phase and each model cost, the web searches and fetches, and what the cache
 * saved against uncached prices. Each breakdown adds up to the total (spend recorded before the bill: unattributed).
 */
export function billTable(bill: Bill | undefined): HTMLElement {
  if (!bill) return h('p', { class: 'hint' }, 'Loading the bill…');
  const rows = (caption: string, id: string, entries: [string, { usd: number; tokens: number } | undefined][]) =>
    h(
      'table',
      { class: 'bill', id },
      h('caption', null, caption),
      h('tbody', null, ...entries.map(([k, v]) => h('tr', null, h('th', { scope: 'row' }, k), h('td', { class: 'num' }, v ? tokens(v.tokens) : ''), h('td', { class: 'num' }, usd(v?.usd ?? 0))))),
    );
  const unattributed: [string, { usd: number; tokens: number }][] = bill.unattributedUsd ? [['unattributed', { usd: bill.unattributedUsd, tokens: 0 }]] : [];
  return h(
    'div',
    { id: 'bill' },
    h('p', { id: 'bill-total', class: 'bill-total' }, `Total ${usd(bill.totalUsd)}`),
    rows('By phase', 'bill-phases', [...Object.entries(bill.byPhase), ...unattributed]),
    rows('By model', 'bill-models', [...Object.entries(bill.byModel), ...unattributed]),
    h(
      'p',
      { id: 'bill-web' },
      `Web: ${count(bill.tools.webSearches.count)} searches ${usd(bill.tools.webSearches.usd)}, ${count(bill.tools.webFetches.count)} fetches ${usd(bill.tools.webFetches.usd)}`,
    ),
    h('p', { id: 'bill-cache' }, `Cache: saved ${usd(bill.cache.savedUsd)} against ${usd(bill.cache.uncachedUsd)} uncached (${tokens(bill.cache.readTokens)} read from it)`),
  );
}
