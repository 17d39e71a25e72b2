/** BM25 parameters and field boosts of the corpus index (MiniSearch's option names). */
export interface Bm25Options {
  k: number;
  b: number;
  d: number;
  /** Boost per field, in field order; a field not listed counts 1. */
  boost: Readonly<Record<string, number>>;
}

export interface Bm25Hit {
  doc: number;
  score: number;
  /** Query terms the document matched, in MiniSearch's order (integer-like terms first). */
  matched: string[];
}

/**
 * One field's postings packed flat (CSR): term t's documents are `docs[start[t]..start[t + 1])` and its unweighted BM25
 * scores `raw` at the same places. Two arrays per field, not two per term: tens of thousands of small typed arrays each
 * cost a backing store of their own.
 */
interface PackedField {
  boost: number;
  start: Int32Array;
  docs: Int32Array;
  raw: Float64Array;
}

const INTEGER_KEY = /^(0|[1-9][0-9]*)$/;

/**
 * The BM25 ranking MiniSearch computes for an OR query with per-term boosts — same formula, same
 * floating-point operations in the same order, same tie order — over flat posting arrays built once.
 * MiniSearch allocates a Map per query term and merges them; a "more like this" probe of 25 weighted
 * terms over a ten-thousand-passage corpus spent most of a topic profile's seconds there.
 */
export class Bm25Postings {
  /** Term -> its number in every field's `start` (a term a field lacks has an empty range there). */
  private readonly termIds: ReadonlyMap<string, number>;
  private readonly fields: PackedField[];
  private readonly acc: Float64Array;
  private readonly part: Float64Array;
  private readonly count: Uint16Array;
  /** Per document, the query (stamp) that last touched it, and the term (stamp) that last touched it. */
  private readonly seenQuery: Uint32Array;
  private readonly seenTerm: Uint32Array;
  private stamp = 0;

  constructor(
    readonly fieldNames: readonly string[],
    docs: NumberedDocs,
    options: Bm25Options,
    /** Passage count and document frequency to weigh terms by, when the documents are part of a larger corpus. */
    idfStats?: { size: number; df: (term: string) => number | undefined },
    /** The fields `buildFields` made already (what `Bm25Postings.build` passes). */
    built?: PackedField[],
  ) {
    const n = (docs.bounds.length - 1) / fieldNames.length;
    this.termIds = docs.numbering.ids;
    this.fields = built ?? runToEnd(buildFields(fieldNames, docs, options, idfStats));
    this.acc = new Float64Array(n);
    this.part = new Float64Array(n);
    this.count = new Uint16Array(n);
    this.seenQuery = new Uint32Array(n);
    this.seenTerm = new Uint32Array(n);
  }

  /** The same postings, built in slices that let the event loop turn between them (a large corpus takes seconds). */
  static async build(
    fieldNames: readonly string[],
    docs: NumberedDocs,
    options: Bm25Options,
    idfStats?: { size: number; df: (term: string) => number | undefined },
  ): Promise<Bm25Postings> {
    const steps = buildFields(fieldNames, docs, options, idfStats);
    for (let step = steps.next(); ; step = steps.next()) {
      if (step.done) return new Bm25Postings(fieldNames, docs, options, idfStats, step.value);
      await turn();
    }
  }

  /**
   * Documents matching any of `terms` (unique, in query order), best first; `boost` weighs a term
   * (default 1); `keep` filters documents before the ranking.
   */
  search(terms: readonly string[], options: { boost?: (term: string) => number; keep?: (doc: number) => boolean; limit?: number; withTerms?: boolean } = {}): Bm25Hit[] {
    const { boost, keep, limit = Infinity, withTerms = true } = options;
    const queryStamp = this.nextStamp();
    const touched: number[] = [];
    const termsOf = withTerms ? new Map<number, string[]>() : null;
    for (const term of terms) {
      const termStamp = this.nextStamp();
      const w = boost ? boost(term) : 1;
      const order: number[] = [];
      const id = this.termIds.get(term);
      if (id === undefined) continue;
      for (const field of this.fields) {
        const end = field.start[id + 1]!;
        const weight = w * field.boost;
        for (let i = field.start[id]!; i < end; i++) {
          const doc = field.docs[i]!;
          const s = weight * field.raw[i]!;
          if (this.seenTerm[doc] === termStamp) this.part[doc] = this.part[doc]! + s;
          else {
            this.seenTerm[doc] = termStamp;
            this.part[doc] = s;
            order.push(doc);
          }
        }
      }
      for (const doc of order) {
        if (this.seenQuery[doc] === queryStamp) {
          this.acc[doc] = this.acc[doc]! + this.part[doc]!;
          this.count[doc]!++;
        } else {
          this.seenQuery[doc] = queryStamp;
          this.acc[doc] = this.part[doc]!;
          this.count[doc] = 1;
          touched.push(doc);
        }
        if (termsOf) {
          const list = termsOf.get(doc);
          if (list) list.push(term);
          else termsOf.set(doc, [term]);
        }
      }
    }
    const kept = keep ? touched.filter(keep) : touched;
    for (const doc of kept) this.part[doc] = this.acc[doc]! * this.count[doc]!;
    // Only what can make the top `limit` is sorted: scores from the limit-th best down (ties included).
    const floor = kept.length > limit ? kthLargest(kept.map((doc) => this.part[doc]!), limit) : -Infinity;
    const hits: Bm25Hit[] = [];
    for (const doc of kept) {
      const score = this.part[doc]!;
      if (score >= floor) hits.push({ doc, score, matched: termsOf ? keyOrder(termsOf.get(doc)!) : [] });
    }
    // Stable: equal scores keep first-match order, as MiniSearch's do.
    return hits.sort((a, b) => b.score - a.score).slice(0, limit);
  }

  /** Bytes of the typed arrays held (postings and per-query scratch): what a cache of indexes weighs them by. */
  get bytes(): number {
    let total = this.acc.byteLength + this.part.byteLength + this.count.byteLength + this.seenQuery.byteLength + this.seenTerm.byteLength;
    for (const f of this.fields) total += f.start.byteLength + f.docs.byteLength + f.raw.byteLength;
    return total;
  }

  private nextStamp(): number {
    if (this.stamp >= 0xfffffffe) {
      this.seenQuery.fill(0);
      this.seenTerm.fill(0);
      this.stamp = 0;
    }
    return ++this.stamp;
  }
}

/** The k-th largest of `xs` (1-based), by quickselect; reorders `xs`. */
function kthLargest(xs: number[], k: number): number {
  let lo = 0;
  let hi = xs.length - 1;
  const target = k - 1;
  while (lo < hi) {
    const pivot = xs[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (xs[i]! > pivot) i++;
      while (xs[j]! < pivot) j--;
      if (i <= j) {
        [xs[i], xs[j]] = [xs[j]!, xs[i]!];
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return xs[target]!;
}

/** The order of an object's own keys, which MiniSearch's matched-term lists come in: integer-like keys first, ascending. */
function keyOrder(terms: string[]): string[] {
  if (!terms.some((t) => INTEGER_KEY.test(t))) return terms;
  const ints = terms.filter((t) => INTEGER_KEY.test(t) && Number(t) < 2 ** 32 - 1).sort((a, b) => Number(a) - Number(b));
  return [...ints, ...terms.filter((t) => !ints.includes(t))];
}

/** Terms by number (`terms[ids.get(t)] === t`). */
export interface TermNumbering {
  ids: ReadonlyMap<string, number>;
  terms: readonly string[];
}

/**
 * Documents as term numbers, their fields in order: field f of document n (of F fields) is
 * `ids[bounds[n * F + f]..bounds[n * F + f + 1])`.
 */
export interface NumberedDocs {
  ids: Int32Array;
  bounds: Int32Array;
  numbering: TermNumbering;
}

/** Documents (or terms) between two turns of the event loop in `Bm25Postings.build`. */
const SLICE = 2000;
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A generator of slices run without pausing. */
export function runToEnd<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * The fields' postings, pausing (yield) after every slice of documents or terms: two passes over the term numbers per
 * field (count each term's documents, then place them), so a build allocates its packed arrays and little else.
 */
function* buildFields(
  fieldNames: readonly string[],
  docs: NumberedDocs,
  options: Bm25Options,
  idfStats?: { size: number; df: (term: string) => number | undefined },
): Generator<void, PackedField[]> {
  const { ids, bounds } = docs;
  const terms = docs.numbering.terms;
  const F = fieldNames.length;
  const n = (bounds.length - 1) / F;
  const idfN = idfStats?.size ?? n;
  const { k, b, d } = options;
  const tf = new Int32Array(terms.length);
  const fields: PackedField[] = [];
  for (const [f, name] of fieldNames.entries()) {
    // Pass 1: each document's distinct terms (its length, as MiniSearch counts it), and each term's document count.
    // MiniSearch's running average of unique terms per field, in document order.
    let avg = 0;
    const lengths = new Float64Array(n);
    const start = new Int32Array(terms.length + 1);
    for (let doc = 0; doc < n; doc++) {
      const from = bounds[doc * F + f]!;
      const to = bounds[doc * F + f + 1]!;
      let distinct = 0;
      for (let i = from; i < to; i++) if (tf[ids[i]!]!++ === 0) distinct++;
      for (let i = from; i < to; i++) {
        if (tf[ids[i]!] !== 0) start[ids[i]! + 1]!++;
        tf[ids[i]!] = 0;
      }
      lengths[doc] = distinct;
      avg = (avg * doc + distinct) / (doc + 1);
      if (doc % SLICE === SLICE - 1) yield;
    }
    for (let t = 0; t < terms.length; t++) start[t + 1]! += start[t]!;
    // Pass 2: each term's documents in document order, with their term frequencies, then scored.
    const total = start[terms.length]!;
    const docsOf = new Int32Array(total);
    const raw = new Float64Array(total);
    const next = start.slice(0, terms.length);
    for (let doc = 0; doc < n; doc++) {
      const from = bounds[doc * F + f]!;
      const to = bounds[doc * F + f + 1]!;
      for (let i = from; i < to; i++) tf[ids[i]!]!++;
      for (let i = from; i < to; i++) {
        const t = ids[i]!;
        if (tf[t] === 0) continue;
        const at = next[t]!++;
        docsOf[at] = doc;
        raw[at] = tf[t]!;
        tf[t] = 0;
      }
      if (doc % SLICE === SLICE - 1) yield;
    }
    for (let t = 0; t < terms.length; t++) {
      const matching = Math.max(start[t + 1]! - start[t]!, idfStats?.df(terms[t]!) ?? 0);
      const idf = Math.log(1 + (idfN - matching + 0.5) / (matching + 0.5));
      for (let i = start[t]!; i < start[t + 1]!; i++) {
        const termFreq = raw[i]!;
        raw[i] = idf * (d + (termFreq * (k + 1)) / (termFreq + k * (1 - b + (b * lengths[docsOf[i]!]!) / avg)));
      }
      if (t % (SLICE * 5) === SLICE * 5 - 1) yield;
    }
    fields.push({ boost: options.boost[name] ?? 1, start, docs: docsOf, raw });
  }
  return fields;
}
