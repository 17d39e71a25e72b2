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

  /** `docs[n][f]`: document n's tokens in field f (the order of `fieldNames`). */
  constructor(
    readonly fieldNames: readonly string[],
    docs: readonly (readonly (readonly string[])[])[],
    options: Bm25Options,
    /** Passage count and document frequency to weigh terms by, when the documents are part of a larger corpus. */
    idfStats?: { size: number; df: (term: string) => number | undefined },
    /** The fields `buildFields` made already (what `Bm25Postings.build` passes). */
    built?: BuiltFields,
    /** Terms numbered by the caller (every token of `docs` among them): the postings share its map rather than keep one. */
    numbering?: TermNumbering,
  ) {
    const n = docs.length;
    ({ termIds: this.termIds, fields: this.fields } = built ?? runToEnd(buildFields(fieldNames, docs, options, idfStats, numbering)));
    this.acc = new Float64Array(n);
    this.part = new Float64Array(n);
    this.count = new Uint16Array(n);
    this.seenQuery = new Uint32Array(n);
    this.seenTerm = new Uint32Array(n);
  }

  /** The same postings, built in slices that let the event loop turn between them (a large corpus takes seconds). */
  static async build(
    fieldNames: readonly string[],
    docs: readonly (readonly (readonly string[])[])[],
    options: Bm25Options,
    idfStats?: { size: number; df: (term: string) => number | undefined },
    numbering?: TermNumbering,
  ): Promise<Bm25Postings> {
    const steps = buildFields(fieldNames, docs, options, idfStats, numbering);
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

interface BuiltFields {
  termIds: ReadonlyMap<string, number>;
  fields: PackedField[];
}

/** Terms by number (`terms[ids.get(t)] === t`). */
export interface TermNumbering {
  ids: ReadonlyMap<string, number>;
  terms: readonly string[];
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

/** The fields' postings, pausing (yield) after every slice of documents or terms. */
function* buildFields(
  fieldNames: readonly string[],
  docs: readonly (readonly (readonly string[])[])[],
  options: Bm25Options,
  idfStats?: { size: number; df: (term: string) => number | undefined },
  numbering?: TermNumbering,
): Generator<void, BuiltFields> {
  const n = docs.length;
  const idfN = idfStats?.size ?? n;
  const termIds = new Map<string, number>();
  const numberOf = (t: string): number => {
    let id = numbering ? numbering.ids.get(t) : termIds.get(t);
    if (id === undefined) {
      if (numbering) throw new Error(`Bm25Postings: term ${JSON.stringify(t)} is not numbered`);
      termIds.set(t, (id = termIds.size));
    }
    return id;
  };
  const built: { boost: number; lengths: Float64Array; avg: number; freq: Map<number, { docs: number[]; tf: number[] }> }[] = [];
  for (const [f, name] of fieldNames.entries()) {
    // MiniSearch's running average of unique terms per field, in document order.
    let avg = 0;
    const lengths = new Float64Array(n);
    const freq = new Map<number, { docs: number[]; tf: number[] }>();
    for (let doc = 0; doc < n; doc++) {
      const tokens = docs[doc]![f] ?? [];
      const tf = new Map<string, number>();
      for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
      lengths[doc] = tf.size;
      avg = (avg * doc + tf.size) / (doc + 1);
      for (const [t, c] of tf) {
        const id = numberOf(t);
        let p = freq.get(id);
        if (!p) freq.set(id, (p = { docs: [], tf: [] }));
        p.docs.push(doc);
        p.tf.push(c);
      }
      if (doc % SLICE === SLICE - 1) yield;
    }
    built.push({ boost: options.boost[name] ?? 1, lengths, avg, freq });
  }
  const terms = numbering?.terms ?? [...termIds.keys()];
  const { k, b, d } = options;
  const fields: PackedField[] = [];
  for (const { boost, lengths, avg, freq } of built) {
    let total = 0;
    for (const p of freq.values()) total += p.docs.length;
    const start = new Int32Array(terms.length + 1);
    const docsOf = new Int32Array(total);
    const raw = new Float64Array(total);
    let at = 0;
    for (let id = 0; id < terms.length; id++) {
      start[id] = at;
      const p = freq.get(id);
      if (p) {
        const matching = Math.max(p.docs.length, idfStats?.df(terms[id]!) ?? 0);
        const idf = Math.log(1 + (idfN - matching + 0.5) / (matching + 0.5));
        for (let i = 0; i < p.docs.length; i++, at++) {
          const doc = p.docs[i]!;
          const termFreq = p.tf[i]!;
          docsOf[at] = doc;
          raw[at] = idf * (d + (termFreq * (k + 1)) / (termFreq + k * (1 - b + (b * lengths[doc]!) / avg)));
        }
      }
      if (id % (SLICE * 5) === SLICE * 5 - 1) yield;
    }
    start[terms.length] = at;
    fields.push({ boost, start, docs: docsOf, raw });
  }
  return { termIds: numbering?.ids ?? termIds, fields };
}
