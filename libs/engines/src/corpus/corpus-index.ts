import type { PassageHit, PassageSearch } from '../engine';
import { Bm25Postings, runToEnd } from './bm25-postings';
import type { Passage } from './passage';
import { analyzeTerms } from './text-analysis';

/** A passage's analyzed fields, as built once and cached on disk. */
export interface AnalyzedPassage {
  /** Space-joined content terms of the text. */
  text: string;
  /** Space-joined content terms of the title (empty when the passage has no real title). */
  title: string;
}

export interface SerializedCorpusIndex {
  version: number;
  analyzed: AnalyzedPassage[];
}

export interface ScoredPassage {
  id: string;
  score: number;
  /** Index terms of the query that matched. */
  matched: string[];
}

export interface TermSearchOptions {
  limit: number;
  /** Per-term weight multipliers (query term -> boost). */
  weights?: ReadonlyMap<string, number>;
  filter?: (id: string) => boolean;
  /** Fill `matched` (default true); a caller that reads only ids and scores saves the bookkeeping. */
  withTerms?: boolean;
}

/** Bump when the analyzed form changes: a cache of another version is rebuilt. */
export const INDEX_VERSION = 1;
const split = (s: string): string[] => (s ? s.split(' ') : []);

/** BM25 over two fields, the passage text and (at half weight) its title. */
export const BM25_FIELDS = ['text', 'title'] as const;
export const BM25_OPTIONS = { k: 1.2, b: 0.75, d: 0.5, boost: { title: 0.5 } };

export interface CorpusIndexOptions {
  /**
   * A "more like this" probe reads only terms in at most this many passages, so one probe costs at most
   * 25 capped posting lists whatever the corpus's size (the common terms of a large corpus would make every
   * probe read a share of the whole corpus). Above every term's frequency in corpora of up to this size.
   */
  neighborMaxDf: number;
  /** False for a working index of part of a corpus (a stored corpus's passages one topic reaches): nothing corpus-wide is built on it. */
  wholeCorpus: boolean;
  /**
   * The whole corpus's passage count and document frequencies, for a working index of part of it: term
   * weights (IDF, in BM25 and TF-IDF) are then the corpus's, not the part's. Unset: the index's own.
   */
  corpusStats?: { size: number; df: ReadonlyMap<string, number> };
}

export interface CorpusIndexParts {
  passages: readonly Passage[];
  analyzed: SerializedCorpusIndex;
  options: CorpusIndexOptions;
}

export const DEFAULT_CORPUS_INDEX: CorpusIndexOptions = { neighborMaxDf: 20_000, wholeCorpus: true };

/**
 * A BM25 index over a corpus's passages (wink-nlp stems, stop words filtered),
 * plus the term statistics the planning and precision-guard heuristics need (document frequency,
 * IDF, TF-IDF vectors).
 */
export class CorpusIndex implements PassageSearch {
  private readonly byId = new Map<string, number>();
  /** Each passage's terms (text then title), as numbers into `vocabulary`: one string per distinct term, not per occurrence. */
  private readonly terms: PackedTerms;
  private readonly docFreq: Map<string, number>;
  private readonly vectors = new Map<number, Map<string, number>>();
  private readonly neighborCache = new Map<string, { id: string; score: number }[]>();
  private readonly postings: Bm25Postings;

  constructor(
    readonly passages: readonly Passage[],
    cached?: SerializedCorpusIndex,
    private readonly options: CorpusIndexOptions = DEFAULT_CORPUS_INDEX,
    /** What `CorpusIndex.build` made already, from `cached`. */
    built?: { terms: PackedTerms; docFreq: Map<string, number>; postings: Bm25Postings },
  ) {
    passages.forEach((p, i) => {
      if (this.byId.has(p.id)) throw new Error(`duplicate passage id ${JSON.stringify(p.id)}`);
      this.byId.set(p.id, i);
    });
    const usable = cached && cached.version === INDEX_VERSION && cached.analyzed.length === passages.length;
    // Held only while the index is built: the packed terms give the same strings back (`analyzed`).
    const analyzed = usable
      ? cached.analyzed
      : passages.map((p) => ({ text: analyzeTerms(p.text).join(' '), title: p.title && p.title !== p.id ? analyzeTerms(p.title).join(' ') : '' }));
    ({ terms: this.terms, docFreq: this.docFreq } = built ?? runToEnd(packTerms(analyzed)));
    this.postings = built?.postings ?? new Bm25Postings(BM25_FIELDS, fieldTokens(analyzed), BM25_OPTIONS, idfStatsOf(this.options));
  }

  /**
   * The same index from terms analysed before (a store's), its postings built in slices that let the event loop turn:
   * a working index of thousands of passages takes a second or more to build.
   */
  static async build(passages: readonly Passage[], analyzed: AnalyzedPassage[], options: CorpusIndexOptions = DEFAULT_CORPUS_INDEX): Promise<CorpusIndex> {
    const steps = packTerms(analyzed);
    let step = steps.next();
    for (; !step.done; step = steps.next()) await new Promise((r) => setImmediate(r));
    const { terms, docFreq } = step.value;
    const postings = await Bm25Postings.build(BM25_FIELDS, fieldTokens(analyzed), BM25_OPTIONS, idfStatsOf(options));
    return new CorpusIndex(passages, { version: INDEX_VERSION, analyzed }, options, { terms, docFreq, postings });
  }

  get size(): number {
    return this.passages.length;
  }

  get wholeCorpus(): boolean {
    return this.options.wholeCorpus;
  }

  serialize(): SerializedCorpusIndex {
    return { version: INDEX_VERSION, analyzed: this.analyzed };
  }

  /** Each passage's analysed fields, space-joined, as the index was built from them (read back from the packed terms). */
  get analyzed(): AnalyzedPassage[] {
    const { vocabulary, start, title, ids } = this.terms;
    const join = (from: number, to: number): string => {
      const words: string[] = [];
      for (let i = from; i < to; i++) words.push(vocabulary[ids[i]!]!);
      return words.join(' ');
    };
    return this.passages.map((_, n) => ({ text: join(start[n]!, title[n]!), title: join(title[n]!, start[n + 1]!) }));
  }

  /** What builds the same index in another thread (structured-cloneable): `CorpusIndex.fromParts`. */
  parts(): CorpusIndexParts {
    return { passages: this.passages, analyzed: this.serialize(), options: this.options };
  }

  static fromParts(parts: CorpusIndexParts): CorpusIndex {
    return new CorpusIndex(parts.passages, parts.analyzed, parts.options);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  passage(id: string): Passage | undefined {
    const n = this.byId.get(id);
    return n === undefined ? undefined : this.passages[n];
  }

  get(id: string): PassageHit | undefined {
    const p = this.passage(id);
    return p ? { ...p, score: 0 } : undefined;
  }

  /** Free-text BM25 search (the PassageSearch contract used by the Claude engine's tools). */
  search(query: string, limit: number): PassageHit[] {
    return this.searchTerms(analyzeTerms(query), { limit }).map((h) => ({ ...this.passage(h.id)!, score: h.score }));
  }

  /** BM25 over already-analyzed query terms. Repeated terms count once; use `weights` to boost. */
  searchTerms(queryTerms: readonly string[], options: TermSearchOptions): ScoredPassage[] {
    const unique = [...new Set(queryTerms)].filter((t) => this.docFreq.has(t));
    if (unique.length === 0 || options.limit <= 0) return [];
    const weights = options.weights;
    const filter = options.filter;
    const hits = this.postings.search(unique, {
      limit: options.limit,
      withTerms: options.withTerms ?? true,
      ...(weights ? { boost: (term: string) => weights.get(term) ?? 1 } : {}),
      ...(filter ? { keep: (n: number) => filter(this.passages[n]!.id) } : {}),
    });
    return hits.map((h) => ({ id: this.passages[h.doc]!.id, score: h.score, matched: h.matched }));
  }

  /**
   * The k passages most like this one ("more like this": a BM25 query of its top TF-IDF terms among the
   * rare enough ones, then re-ranked by cosine). Memoized: the index is read-only.
   */
  neighbors(id: string, k: number): { id: string; score: number }[] {
    const cacheKey = `${k}\u0000${id}`;
    const hit = this.neighborCache.get(cacheKey);
    if (hit) return hit;
    const v = this.vector(id);
    const maxDf = this.options.neighborMaxDf;
    const top = [...v.entries()]
      .filter(([t]) => (this.docFreq.get(t) ?? 0) <= maxDf)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, 25);
    const weights = new Map(top.map(([t, w]) => [t, w / (top[0]?.[1] ?? 1)]));
    const self = this.byId.get(id);
    const terms = [...weights.keys()];
    // Straight to the postings: the self-exclusion by document number, not by id, on every document touched.
    const pool = this.postings.search(terms, { limit: k * 3 + 1, withTerms: false, boost: (t) => weights.get(t) ?? 1, keep: (n) => n !== self });
    const result = pool
      .map((r) => ({ id: this.passages[r.doc]!.id, score: cosine(v, this.vector(this.passages[r.doc]!.id)) }))
      .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id))
      .slice(0, k);
    this.neighborCache.set(cacheKey, result);
    return result;
  }

  /** Analyzed content terms of a passage (text and title), in order. */
  termsOf(id: string): readonly string[] {
    const n = this.byId.get(id);
    if (n === undefined) return [];
    const { vocabulary, start, ids } = this.terms;
    const out: string[] = [];
    for (let i = start[n]!; i < start[n + 1]!; i++) out.push(vocabulary[ids[i]!]!);
    return out;
  }

  df(term: string): number {
    return this.docFreq.get(term) ?? 0;
  }

  /**
   * Share of the corpus's passages that hold the term: the whole corpus's when this index is part of one. A working
   * index is built from the topic's own hits, so there its terms are common by construction, not in the corpus.
   */
  share(term: string): number {
    const df = this.docFreq.get(term);
    if (!df) return 0;
    const stats = this.options.corpusStats;
    return stats ? Math.max(df, stats.df.get(term) ?? df) / stats.size : df / this.size;
  }

  /** Smoothed inverse document frequency, ln(1 + N / df); 0 for unknown terms. */
  idf(term: string): number {
    const df = this.docFreq.get(term);
    if (!df) return 0;
    const stats = this.options.corpusStats;
    return stats ? Math.log(1 + stats.size / Math.max(df, stats.df.get(term) ?? df)) : Math.log(1 + this.size / df);
  }

  /** L2-normalized TF-IDF vector of a passage (sublinear tf), computed lazily and memoized. */
  vector(id: string): ReadonlyMap<string, number> {
    const n = this.byId.get(id);
    if (n === undefined) return new Map();
    let v = this.vectors.get(n);
    if (!v) {
      v = new Map();
      for (const t of this.termsOf(id)) v.set(t, (v.get(t) ?? 0) + 1);
      let norm = 0;
      for (const [t, tf] of v) {
        const w = (1 + Math.log(tf)) * this.idf(t);
        v.set(t, w);
        norm += w * w;
      }
      norm = Math.sqrt(norm) || 1;
      for (const [t, w] of v) v.set(t, w / norm);
      this.vectors.set(n, v);
    }
    return v;
  }
}

/** Passages' terms packed flat: passage n's are `vocabulary[ids[i]]` for i in [start[n], start[n + 1]), its title's from `title[n]` on. */
interface PackedTerms {
  vocabulary: string[];
  start: Int32Array;
  title: Int32Array;
  ids: Int32Array;
}

/** The passages' terms packed, and each term's document frequency; pauses (yield) every thousand passages. */
function* packTerms(analyzed: readonly AnalyzedPassage[]): Generator<void, { terms: PackedTerms; docFreq: Map<string, number> }> {
  const numbers = new Map<string, number>();
  const vocabulary: string[] = [];
  const docFreq = new Map<string, number>();
  const start = new Int32Array(analyzed.length + 1);
  const title = new Int32Array(analyzed.length);
  let ids = new Int32Array(1024);
  let at = 0;
  for (const [n, a] of analyzed.entries()) {
    start[n] = at;
    const text = split(a.text);
    title[n] = at + text.length;
    const ts = text.concat(split(a.title));
    if (at + ts.length > ids.length) {
      const grown = new Int32Array(Math.max(ids.length * 2, at + ts.length));
      grown.set(ids);
      ids = grown;
    }
    for (const t of ts) {
      let id = numbers.get(t);
      if (id === undefined) {
        numbers.set(t, (id = vocabulary.length));
        vocabulary.push(t);
      }
      ids[at++] = id;
    }
    for (const t of new Set(ts)) docFreq.set(t, (docFreq.get(t) ?? 0) + 1);
    if (n % 1000 === 999) yield;
  }
  start[analyzed.length] = at;
  return { terms: { vocabulary, start, title, ids: ids.slice(0, at) }, docFreq };
}

const fieldTokens = (analyzed: readonly AnalyzedPassage[]): string[][][] => analyzed.map((a) => [split(a.text), split(a.title)]);

function idfStatsOf(options: CorpusIndexOptions): { size: number; df: (term: string) => number | undefined } | undefined {
  const stats = options.corpusStats;
  return stats ? { size: stats.size, df: (t) => stats.df.get(t) } : undefined;
}

/** Cosine of a (normalized) passage vector with any weighted term vector. */
export function cosine(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [t, w] of small) {
    const o = large.get(t);
    if (o) dot += w * o;
  }
  let na = 0;
  let nb = 0;
  for (const w of a.values()) na += w * w;
  for (const w of b.values()) nb += w * w;
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}
