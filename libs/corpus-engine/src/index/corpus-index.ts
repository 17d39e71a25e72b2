import type { PassageHit, PassageSearch } from '@orrery/engine';
import { Bm25Postings, type NumberedDocs, runToEnd } from './bm25-postings';
import type { Passage } from '@orrery/passages';
import { analyzeTerms } from '@orrery/language';

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
 * A passage's TF-IDF vector, read as a map of term -> weight (a `Map` is one too): what `cosine` compares. An index's
 * vectors are views over flat arrays, not a map per passage.
 */
export interface TermVector {
  readonly size: number;
  get(term: string): number | undefined;
  values(): Iterable<number>;
  [Symbol.iterator](): Iterator<[string, number]>;
}

/**
 * A BM25 index over a corpus's passages (wink-nlp stems, stop words filtered),
 * plus the term statistics the planning and precision-guard heuristics need (document frequency,
 * IDF, TF-IDF vectors).
 */
export class CorpusIndex implements PassageSearch {
  private readonly byId = new Map<string, number>();
  /** Each passage's terms (text then title), as numbers into `vocabulary`: one string per distinct term, not per occurrence. */
  private readonly terms: PackedTerms;
  /** Passages holding each term, by term number. */
  private readonly docFreq: Int32Array;
  /** The whole corpus's passage count and document frequencies by term number, for a working index of part of it. */
  private readonly corpus: { size: number; df: Int32Array } | undefined;
  private readonly options: Omit<CorpusIndexOptions, 'corpusStats'>;
  /** Every passage's TF-IDF vector, packed flat; computed on first use. */
  private packedVectors: PackedVectors | undefined;
  /** The passages' part of `bytes`, counted once. */
  private passageBytes: number | undefined;
  private readonly neighborCache = new Map<string, { id: string; score: number }[]>();
  private readonly postings: Bm25Postings;

  constructor(
    readonly passages: readonly Passage[],
    cached?: SerializedCorpusIndex,
    options: CorpusIndexOptions = DEFAULT_CORPUS_INDEX,
    /** What `CorpusIndex.build` made already, from `cached`. */
    built?: { terms: PackedTerms; docFreq: Int32Array; postings: Bm25Postings },
  ) {
    passages.forEach((p, i) => {
      if (this.byId.has(p.id)) throw new Error(`duplicate passage id ${JSON.stringify(p.id)}`);
      this.byId.set(p.id, i);
    });
    const { corpusStats, ...rest } = options;
    this.options = rest;
    const usable = cached && cached.version === INDEX_VERSION && cached.analyzed.length === passages.length;
    // Held only while the index is built: the packed terms give the same strings back (`analyzed`).
    const analyzed = usable
      ? cached.analyzed
      : passages.map((p) => ({ text: analyzeTerms(p.text).join(' '), title: p.title && p.title !== p.id ? analyzeTerms(p.title).join(' ') : '' }));
    ({ terms: this.terms, docFreq: this.docFreq } = built ?? runToEnd(packTerms(analyzed)));
    this.corpus = corpusStats && { size: corpusStats.size, df: Int32Array.from(this.terms.vocabulary, (t) => corpusStats.df.get(t) ?? 0) };
    this.postings = built?.postings ?? new Bm25Postings(BM25_FIELDS, numberedDocs(this.terms), BM25_OPTIONS, idfStatsOf(corpusStats));
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
    const postings = await Bm25Postings.build(BM25_FIELDS, numberedDocs(terms), BM25_OPTIONS, idfStatsOf(options.corpusStats));
    return new CorpusIndex(passages, { version: INDEX_VERSION, analyzed }, options, { terms, docFreq, postings });
  }

  get size(): number {
    return this.passages.length;
  }

  /**
   * About how many bytes the index holds (what a cache of indexes weighs it by): its passages' strings as V8 stores
   * them, its packed terms, frequencies, postings and, once computed, vectors, with a rough per-entry overhead for
   * objects and maps.
   */
  get bytes(): number {
    this.passageBytes ??= this.passages.reduce((sum, p) => sum + OBJECT_BYTES + stringBytes(p.id) + stringBytes(p.title) + stringBytes(p.text) + (p.url ? stringBytes(p.url) : 0), 0);
    const { vocabulary, start, title, ids } = this.terms;
    const terms = vocabulary.reduce((sum, t) => sum + stringBytes(t) + MAP_ENTRY_BYTES, 0) + start.byteLength + title.byteLength + ids.byteLength;
    const frequencies = this.docFreq.byteLength + (this.corpus?.df.byteLength ?? 0);
    return this.passageBytes + this.size * MAP_ENTRY_BYTES + terms + frequencies + this.postings.bytes + (this.packedVectors?.bytes ?? 0);
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
    const corpus = this.corpus;
    const corpusStats = corpus && { size: corpus.size, df: new Map(this.terms.vocabulary.flatMap((t, k) => (corpus.df[k] ? [[t, corpus.df[k]!] as const] : []))) };
    return { passages: this.passages, analyzed: this.serialize(), options: { ...this.options, ...(corpusStats ? { corpusStats } : {}) } };
  }

  static fromParts(parts: CorpusIndexParts): CorpusIndex {
    return new CorpusIndex(parts.passages, parts.analyzed, parts.options);
  }

  /** Every passage's id, in index order. */
  ids(): string[] {
    return this.passages.map((p) => p.id);
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
    const unique = [...new Set(queryTerms)].filter((t) => this.terms.numbers.has(t));
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
    const self = this.byId.get(id);
    if (self === undefined) return [];
    const vectors = this.vectors();
    const maxDf = this.options.neighborMaxDf;
    const { vocabulary } = this.terms;
    const entries: [string, number][] = [];
    for (let i = vectors.start[self]!; i < vectors.start[self + 1]!; i++) if (this.docFreq[vectors.terms[i]!]! <= maxDf) entries.push([vocabulary[vectors.terms[i]!]!, vectors.weights[i]!]);
    const top = entries.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 25);
    const weights = new Map(top.map(([t, w]) => [t, w / (top[0]?.[1] ?? 1)]));
    const terms = [...weights.keys()];
    // Straight to the postings: the self-exclusion by document number, not by id, on every document touched.
    const pool = this.postings.search(terms, { limit: k * 3 + 1, withTerms: false, boost: (t) => weights.get(t) ?? 1, keep: (n) => n !== self });
    const result = pool
      .map((r) => ({ id: this.passages[r.doc]!.id, score: vectors.cosine(self, r.doc) }))
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
    const k = this.terms.numbers.get(term);
    return k === undefined ? 0 : this.docFreq[k]!;
  }

  /**
   * Share of the corpus's passages that hold the term: the whole corpus's when this index is part of one. A working
   * index is built from the topic's own hits, so there its terms are common by construction, not in the corpus.
   */
  share(term: string): number {
    const k = this.terms.numbers.get(term);
    if (k === undefined) return 0;
    const df = this.docFreq[k]!;
    return this.corpus ? Math.max(df, this.corpus.df[k]!) / this.corpus.size : df / this.size;
  }

  /** Smoothed inverse document frequency, ln(1 + N / df); 0 for unknown terms. */
  idf(term: string): number {
    const k = this.terms.numbers.get(term);
    return k === undefined ? 0 : this.idfOf(k);
  }

  private idfOf(k: number): number {
    const df = this.docFreq[k]!;
    return this.corpus ? Math.log(1 + this.corpus.size / Math.max(df, this.corpus.df[k]!)) : Math.log(1 + this.size / df);
  }

  /**
   * `cosine(this.vector(id), other)` (0 for an unknown id), computed on the packed vector: the same operations in the
   * same order, so the same result, without a map per passage.
   */
  cosineTo(id: string, other: TermVector): number {
    const n = this.byId.get(id);
    return n === undefined ? 0 : this.vectors().cosineWith(n, other);
  }

  /** `cosine` of two passages' vectors (0 when either is unknown). */
  similarity(a: string, b: string): number {
    const [m, n] = [this.byId.get(a), this.byId.get(b)];
    return m === undefined || n === undefined ? 0 : this.vectors().cosine(m, n);
  }

  /** L2-normalized TF-IDF vector of a passage (sublinear tf), its terms in the order they first occur. */
  vector(id: string): TermVector {
    const n = this.byId.get(id);
    return n === undefined ? new Map() : this.vectors().of(n);
  }

  private vectors(): PackedVectors {
    return (this.packedVectors ??= new PackedVectors(this.terms, (k) => this.idfOf(k)));
  }
}

/**
 * Every passage's TF-IDF vector in three flat arrays: passage n's terms are `terms[start[n]..start[n + 1])` (numbers into
 * the vocabulary, in first-occurrence order) with their weights at the same places. A map per passage cost about three
 * times as much (a 3,000-passage working index held 5 MB of them).
 */
class PackedVectors {
  readonly start: Int32Array;
  readonly terms: Int32Array;
  readonly weights: Float64Array;
  /** Scratch: a vector's weights by term number while it is compared (0 elsewhere). */
  private readonly scattered: Float64Array;

  constructor(
    private readonly packed: PackedTerms,
    idf: (term: number) => number,
  ) {
    const passages = packed.start.length - 1;
    const tf = new Int32Array(packed.vocabulary.length);
    const start = new Int32Array(passages + 1);
    const terms: number[] = [];
    const weights: number[] = [];
    for (let n = 0; n < passages; n++) {
      start[n] = terms.length;
      for (let i = packed.start[n]!; i < packed.start[n + 1]!; i++) if (tf[packed.ids[i]!]!++ === 0) terms.push(packed.ids[i]!);
      let norm = 0;
      for (let j = start[n]!; j < terms.length; j++) {
        const w = (1 + Math.log(tf[terms[j]!]!)) * idf(terms[j]!);
        weights.push(w);
        norm += w * w;
      }
      norm = Math.sqrt(norm) || 1;
      for (let j = start[n]!; j < terms.length; j++) {
        weights[j] = weights[j]! / norm;
        tf[terms[j]!] = 0;
      }
    }
    start[passages] = terms.length;
    this.start = start;
    this.terms = Int32Array.from(terms);
    this.weights = Float64Array.from(weights);
    this.scattered = new Float64Array(packed.vocabulary.length);
  }

  get bytes(): number {
    return this.start.byteLength + this.terms.byteLength + this.weights.byteLength + this.scattered.byteLength;
  }

  /** Passage n's vector as a read-only map view. */
  of(n: number): TermVector {
    const { start, terms, weights } = this;
    const { vocabulary, numbers } = this.packed;
    const from = start[n]!;
    const to = start[n + 1]!;
    return {
      size: to - from,
      get(term) {
        const k = numbers.get(term);
        if (k !== undefined) for (let i = from; i < to; i++) if (terms[i] === k) return weights[i];
        return undefined;
      },
      *values() {
        for (let i = from; i < to; i++) yield weights[i]!;
      },
      *[Symbol.iterator]() {
        for (let i = from; i < to; i++) yield [vocabulary[terms[i]!]!, weights[i]!] as [string, number];
      },
    };
  }

  /** `cosine(of(n), other)`, with the same operations in the same order (so the same result, bit for bit). */
  cosineWith(n: number, other: TermVector): number {
    const { start, terms, weights, scattered } = this;
    const { vocabulary, numbers } = this.packed;
    let dot = 0;
    if (start[n + 1]! - start[n]! <= other.size) {
      for (let i = start[n]!; i < start[n + 1]!; i++) {
        const o = other.get(vocabulary[terms[i]!]!);
        if (o) dot += weights[i]! * o;
      }
    } else {
      // The other is the smaller: its terms are looked up in this vector, spread by term number for the while.
      this.spread(n, true);
      for (const [t, w] of other) {
        const k = numbers.get(t);
        const o = k === undefined ? 0 : scattered[k]!;
        if (o) dot += w * o;
      }
      this.spread(n, false);
    }
    let nb = 0;
    for (const w of other.values()) nb += w * w;
    const na = this.sumOfSquares(n);
    return na && nb ? dot / Math.sqrt(na * nb) : 0;
  }

  /** `cosine` of passages a and b's vectors, with the same operations in the same order (so the same result, bit for bit). */
  cosine(a: number, b: number): number {
    const { start, terms, weights, scattered } = this;
    const [small, large] = start[a + 1]! - start[a]! <= start[b + 1]! - start[b]! ? [a, b] : [b, a];
    this.spread(large, true);
    let dot = 0;
    for (let i = start[small]!; i < start[small + 1]!; i++) {
      const o = scattered[terms[i]!]!;
      if (o) dot += weights[i]! * o;
    }
    this.spread(large, false);
    const na = this.sumOfSquares(a);
    const nb = this.sumOfSquares(b);
    return na && nb ? dot / Math.sqrt(na * nb) : 0;
  }

  /** Passage n's weights put in `scattered` by term number, or (`on` false) taken out again. */
  private spread(n: number, on: boolean): void {
    for (let i = this.start[n]!; i < this.start[n + 1]!; i++) this.scattered[this.terms[i]!] = on ? this.weights[i]! : 0;
  }

  /** The sum of passage n's squared weights, in their order (as `cosine` sums a map's values). */
  private sumOfSquares(n: number): number {
    let sum = 0;
    for (let i = this.start[n]!; i < this.start[n + 1]!; i++) sum += this.weights[i]! * this.weights[i]!;
    return sum;
  }
}

/**
 * Passages' terms packed flat: passage n's are `vocabulary[ids[i]]` for i in [start[n], start[n + 1]), its title's from
 * `title[n]` on; `numbers` gives a term's number.
 */
interface PackedTerms {
  vocabulary: string[];
  numbers: Map<string, number>;
  start: Int32Array;
  title: Int32Array;
  ids: Int32Array;
}

/** The passages' terms packed, and each term's document frequency by number; pauses (yield) every thousand passages. */
function* packTerms(analyzed: readonly AnalyzedPassage[]): Generator<void, { terms: PackedTerms; docFreq: Int32Array }> {
  const numbers = new Map<string, number>();
  const vocabulary: string[] = [];
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
    if (n % 1000 === 999) yield;
  }
  start[analyzed.length] = at;
  // Each passage counts once per term: `seen[k]` is the last passage (plus one) that counted term k.
  const docFreq = new Int32Array(vocabulary.length);
  const seen = new Int32Array(vocabulary.length);
  for (let n = 0; n < analyzed.length; n++) {
    for (let i = start[n]!; i < start[n + 1]!; i++) {
      const k = ids[i]!;
      if (seen[k] !== n + 1) {
        seen[k] = n + 1;
        docFreq[k]!++;
      }
    }
  }
  return { terms: { vocabulary, numbers, start, title, ids: ids.slice(0, at) }, docFreq };
}

/** The packed terms as the postings read them: each passage's text field, then its title field. */
function numberedDocs(terms: PackedTerms): NumberedDocs {
  const passages = terms.title.length;
  const bounds = new Int32Array(2 * passages + 1);
  for (let n = 0; n < passages; n++) {
    bounds[2 * n] = terms.start[n]!;
    bounds[2 * n + 1] = terms.title[n]!;
  }
  bounds[2 * passages] = terms.start[passages]!;
  return { ids: terms.ids, bounds, numbering: { ids: terms.numbers, terms: terms.vocabulary } };
}

function idfStatsOf(stats: CorpusIndexOptions['corpusStats']): { size: number; df: (term: string) => number | undefined } | undefined {
  return stats ? { size: stats.size, df: (t) => stats.df.get(t) } : undefined;
}

/** A rough size of a small object, and of one entry of a Map (key, value, hash table slots). */
const OBJECT_BYTES = 64;
const MAP_ENTRY_BYTES = 40;

/** Bytes V8 holds a string in: one a character when every character is Latin-1, else two, plus its header. */
function stringBytes(s: string): number {
  return 16 + s.length * (/[^\u0000-\u00ff]/.test(s) ? 2 : 1);
}

/** Cosine of a (normalized) passage vector with any weighted term vector. */
export function cosine(a: TermVector, b: TermVector): number {
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
