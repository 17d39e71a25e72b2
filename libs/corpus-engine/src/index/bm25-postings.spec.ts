import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { Bm25Postings, type NumberedDocs } from './bm25-postings';
import { BM25_FIELDS, BM25_OPTIONS } from './corpus-index';

/** A small corpus with titles, repeated terms, shared terms, integer-like terms and a title-only term. */
const DOCS: [string, string][] = [
  ['kestrel migration coast autumn kestrel', 'kestrel 1990'],
  ['harrier migration inland spring', ''],
  ['kestrel nest site return pair', 'nest'],
  ['coast storm 1990 flood damage coast coast', 'storm'],
  ['budget tariff trade economy tax', '1812 economy'],
  ['economy growth trade deficit', ''],
  ['harrier kestrel falcon raptor', 'raptor'],
  ['flood relief aid 1990', ''],
  ['tariff tax trade', 'trade'],
  ['autumn spring season coast', ''],
];
const split = (s: string): string[] => (s ? s.split(' ') : []);

/** Documents' fields of tokens as term numbers (numbered in order of first use). */
function numbered(docs: readonly (readonly (readonly string[])[])[]): NumberedDocs {
  const ids = new Map<string, number>();
  const flat: number[] = [];
  const bounds = [0];
  for (const fields of docs) {
    for (const tokens of fields) {
      for (const t of tokens) {
        if (!ids.has(t)) ids.set(t, ids.size);
        flat.push(ids.get(t)!);
      }
      bounds.push(flat.length);
    }
  }
  return { ids: Int32Array.from(flat), bounds: Int32Array.from(bounds), numbering: { ids, terms: [...ids.keys()] } };
}

function reference(): MiniSearch {
  const mini = new MiniSearch({
    fields: [...BM25_FIELDS],
    idField: 'n',
    tokenize: split,
    processTerm: (t: string) => t,
    searchOptions: { boost: BM25_OPTIONS.boost, combineWith: 'OR', bm25: { k: BM25_OPTIONS.k, b: BM25_OPTIONS.b, d: BM25_OPTIONS.d } },
  });
  mini.addAll(DOCS.map(([text, title], n) => ({ n, text, title })));
  return mini;
}

describe('Bm25Postings', () => {
  const postings = new Bm25Postings(BM25_FIELDS, numbered(DOCS.map(([text, title]) => [split(text), split(title)])), BM25_OPTIONS);
  const mini = reference();
  const queries: { terms: string[]; weights?: Record<string, number> }[] = [
    { terms: ['kestrel'] },
    { terms: ['kestrel', 'migration', 'coast'] },
    { terms: ['1990', 'storm', 'economy', 'raptor'] },
    { terms: ['trade', 'tax', 'tariff', 'economy', 'nest'], weights: { trade: 0.25, tax: 2, nest: 0.5 } },
    { terms: ['coast', 'autumn', 'spring', 'absent'] },
  ];

  it('ranks exactly as MiniSearch does: same documents, scores, order and matched terms', () => {
    for (const q of queries) {
      const boost = q.weights ? (t: string) => q.weights![t] ?? 1 : undefined;
      const expected = mini.search(q.terms.join(' '), boost ? { boostTerm: boost } : {}).map((r) => ({ doc: r.id as number, score: r.score, matched: r.terms }));
      const got = postings.search(q.terms, boost ? { boost } : {});
      expect(got).toEqual(expected);
      expect(got.length).toBeGreaterThan(0);
    }
  });

  it('keeps the top `limit` after filtering, ties in first-match order', () => {
    const all = postings.search(['coast', 'kestrel', 'trade']);
    const keep = (doc: number) => doc !== all[0]!.doc;
    expect(postings.search(['coast', 'kestrel', 'trade'], { limit: 3, keep })).toEqual(all.filter((h) => keep(h.doc)).slice(0, 3));
    expect(postings.search(['coast', 'kestrel', 'trade'], { limit: 2, withTerms: false }).map((h) => h.matched)).toEqual([[], []]);
  });

  it('answers a query after many others the same way (per-query state is reset)', () => {
    const first = postings.search(['kestrel', 'storm']);
    for (let i = 0; i < 50; i++) postings.search(queries[i % queries.length]!.terms);
    expect(postings.search(['kestrel', 'storm'])).toEqual(first);
  });
});

describe('Bm25Postings.build (in slices, letting the event loop turn)', () => {
  it('ranks exactly as the postings built at once', async () => {
    const docs = DOCS.map(([text, title]) => [split(text), split(title)]);
    const once = new Bm25Postings(BM25_FIELDS, numbered(docs), BM25_OPTIONS);
    const sliced = await Bm25Postings.build(BM25_FIELDS, numbered(docs), BM25_OPTIONS);
    for (const q of [['kestrel'], ['coast', 'storm'], ['1990', 'economy', 'trade'], ['raptor', 'nest']]) expect(sliced.search(q)).toEqual(once.search(q));
  });
});

/** A deterministic corpus of `n` documents over a vocabulary of `v` terms, skewed so some terms are common and most rare. */
function generated(n: number, v: number, seed = 7): string[][][] {
  let x = seed;
  const next = (): number => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const term = (): string => `t${Math.floor(v * next() ** 3)}`;
  return Array.from({ length: n }, () => [
    Array.from({ length: 20 + Math.floor(next() * 60) }, term),
    next() < 0.6 ? Array.from({ length: 1 + Math.floor(next() * 4) }, term) : [],
  ]);
}

describe('Bm25Postings on a larger corpus (flat posting arrays per field)', () => {
  const docs = generated(1500, 4000);

  it('ranks exactly as MiniSearch does', () => {
    const mini = reference();
    mini.removeAll();
    mini.addAll(docs.map(([text, title], n) => ({ n, text: text!.join(' '), title: title!.join(' ') })));
    const postings = new Bm25Postings(BM25_FIELDS, numbered(docs), BM25_OPTIONS);
    for (const q of [['t0'], ['t1', 't5', 't40'], ['t3', 't200', 't999', 't3999', 'absent'], ['t2', 't17', 't123', 't7', 't60', 't61']]) {
      const weights = Object.fromEntries(q.map((t, i) => [t, 1 / (i + 1)]));
      const boost = (t: string): number => weights[t] ?? 1;
      const expected = mini.search(q.join(' '), { boostTerm: boost }).map((r) => ({ doc: r.id as number, score: r.score, matched: r.terms }));
      expect(postings.search(q, { boost })).toEqual(expected);
      expect(expected.length).toBeGreaterThan(0);
    }
  });

  it('holds memory in proportion to its own postings, not to the corpus-wide frequencies it weighs terms by', () => {
    // A working index of 1,500 passages of a large corpus in which every term is in 20,000 passages.
    const idfStats = { size: 1_000_000, df: () => 20_000 };
    const before = process.memoryUsage().arrayBuffers;
    const postings = new Bm25Postings(BM25_FIELDS, numbered(docs), BM25_OPTIONS, idfStats);
    // A layout that sized a term's score array by its corpus-wide frequency would hold 160 KB a term here.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(20 * 2 ** 20);
    const entries = docs.reduce((sum, fields) => sum + fields.reduce((s, tokens) => s + new Set(tokens).size, 0), 0);
    const terms = new Set(docs.flat(2)).size;
    // 12 bytes a posting (document and score), 4 per term per field for the offsets, 26 per document of query scratch.
    expect(postings.bytes).toBe(entries * 12 + (terms + 1) * 4 * BM25_FIELDS.length + docs.length * 26);
  });
});
