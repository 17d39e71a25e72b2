import { logLogSlope } from '../support/log-log-slope';

/** The term statistics a generated corpus is compared on with its real pool. */
export interface TermStats {
  passages: number;
  tokens: number;
  vocabulary: number;
  typeTokenRatio: number;
  /** Distinct terms in the first 1M tokens: the type/token ratio at one size, comparable between corpora of any size. */
  typesInFirstMillion: number | null;
  /** Least-squares slope of log(frequency) on log(rank) over ranks 1..10,000 (about −1 for natural text). */
  zipfSlope: number;
  length: { mean: number; min: number; p10: number; p50: number; p90: number; max: number };
  /** Document frequency (share of passages containing the term) of the most frequent terms by document frequency. */
  topTerms: { term: string; df: number }[];
}

const TERM = /[\p{L}\p{N}]+(?:['_-][\p{L}\p{N}]+)*/gu;
const ZIPF_RANKS = 10_000;
const MILLION = 1_000_000;

/** Accumulates passages one at a time: memory grows with the vocabulary, not with the number of passages. */
export class TermStatsAccumulator {
  private readonly freq = new Map<string, number>();
  private readonly df = new Map<string, number>();
  private readonly lengths = new Map<number, number>();
  private passages = 0;
  private tokens = 0;
  private typesAtMillion: number | null = null;

  add(text: string): void {
    const terms = text.toLowerCase().match(TERM) ?? [];
    const seen = new Set<string>();
    for (const t of terms) {
      this.freq.set(t, (this.freq.get(t) ?? 0) + 1);
      seen.add(t);
      if (++this.tokens === MILLION) this.typesAtMillion = this.freq.size;
    }
    for (const t of seen) this.df.set(t, (this.df.get(t) ?? 0) + 1);
    this.lengths.set(terms.length, (this.lengths.get(terms.length) ?? 0) + 1);
    this.passages++;
  }

  /** The document frequency share of `term` (for comparing another corpus's top terms). */
  dfShare(term: string): number {
    return this.passages ? (this.df.get(term) ?? 0) / this.passages : 0;
  }

  result(topN = 10): TermStats {
    const byFreq = [...this.freq.values()].sort((a, b) => b - a).slice(0, ZIPF_RANKS);
    const topTerms = [...this.df.entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, topN)
      .map(([term, n]) => ({ term, df: n / this.passages }));
    return {
      passages: this.passages,
      tokens: this.tokens,
      vocabulary: this.freq.size,
      typeTokenRatio: this.tokens ? this.freq.size / this.tokens : 0,
      typesInFirstMillion: this.typesAtMillion,
      zipfSlope: logLogSlope(byFreq.map((_, i) => i + 1), byFreq),
      length: this.lengthSummary(),
      topTerms,
    };
  }

  private lengthSummary(): TermStats['length'] {
    const sorted = [...this.lengths.entries()].sort((a, b) => a[0] - b[0]);
    // Nearest rank: the smallest length with at least q of the passages at or below it.
    const quantile = (q: number): number => {
      const rank = Math.max(1, Math.ceil(q * this.passages));
      let seen = 0;
      for (const [len, n] of sorted) {
        seen += n;
        if (seen >= rank) return len;
      }
      return sorted.at(-1)?.[0] ?? 0;
    };
    const total = sorted.reduce((s, [len, n]) => s + len * n, 0);
    return {
      mean: this.passages ? total / this.passages : 0,
      min: sorted[0]?.[0] ?? 0,
      p10: quantile(0.1),
      p50: quantile(0.5),
      p90: quantile(0.9),
      max: sorted.at(-1)?.[0] ?? 0,
    };
  }
}

