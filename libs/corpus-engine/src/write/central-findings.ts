import { cosine } from '../index/corpus-index';

interface Central {
  quote: string;
  terms: ReadonlySet<string>;
  citations: readonly { sourceId: string }[];
  relevance: number;
}

/** A lede quote reads well between these lengths (characters); longer ones are taken only when nothing else is. */
const READABLE = { min: 40, max: 240 };
/** Two lede findings this alike say one thing. */
const SAME_FINDING = 0.35;

/**
 * The most central quotes: the closest to what the cited quotes say together (cosine of their term counts to
 * the quotes' mean, IDF over the quotes themselves, so a word every quote shares weighs nothing), blended with
 * the search's relevance, each unlike those taken before it. Readable lengths first.
 */
export function centralQuotes<T extends Central>(quotes: readonly T[], n: number): T[] {
  if (quotes.length <= 1) return [...quotes].slice(0, n);
  const df = new Map<string, number>();
  for (const q of quotes) for (const t of q.terms) df.set(t, (df.get(t) ?? 0) + 1);
  const vec = (q: T): Map<string, number> => new Map([...q.terms].map((t) => [t, Math.log(1 + quotes.length / df.get(t)!)]));
  const vectors = quotes.map(vec);
  const mean = new Map<string, number>();
  for (const v of vectors) for (const [t, x] of v) mean.set(t, (mean.get(t) ?? 0) + x / quotes.length);
  const maxRel = Math.max(...quotes.map((q) => q.relevance)) || 1;
  const score = quotes.map((q, i) => 0.7 * cosine(vectors[i]!, mean) + 0.3 * (q.relevance / maxRel));
  const readable = (q: T): boolean => q.quote.length >= READABLE.min && q.quote.length <= READABLE.max;
  const order = quotes.map((_, i) => i).sort((a, b) => Number(readable(quotes[b]!)) - Number(readable(quotes[a]!)) || score[b]! - score[a]! || a - b);
  const out: number[] = [];
  for (const i of order) {
    if (out.length >= n) break;
    if (out.some((j) => cosine(vectors[i]!, vectors[j]!) >= SAME_FINDING || quotes[j]!.citations[0]!.sourceId === quotes[i]!.citations[0]!.sourceId)) continue;
    out.push(i);
  }
  return out.map((i) => quotes[i]!);
}
