import { describe, expect, it } from 'vitest';
import { CorpusIndex, cosine, DEFAULT_CORPUS_INDEX } from './corpus-index';

describe('CorpusIndex.neighbors', () => {
  // Two kestrel passages share a rare word; thirty fillers share only a word every passage has.
  const passages = [
    { id: 'a', title: '', text: 'Kestrel hovering over the common meadow.' },
    { id: 'b', title: '', text: 'A kestrel nest on the common.' },
    ...Array.from({ length: 30 }, (_, i) => ({ id: `f${i}`, title: '', text: `Common ground number ${i} with filler${i} words.` })),
  ];

  it('probes with rare terms only: a term in more passages than the cap is not read', () => {
    const everyTerm = new CorpusIndex(passages);
    expect(everyTerm.neighbors('a', 5).some((n) => n.id.startsWith('f'))).toBe(true);
    const pruned = new CorpusIndex(passages, undefined, { ...DEFAULT_CORPUS_INDEX, neighborMaxDf: 5 });
    expect(pruned.neighbors('a', 5).map((n) => n.id)).toEqual(['b']);
  });
});

describe('CorpusIndex over part of a corpus', () => {
  const part = [
    { id: 'a', title: '', text: 'Kestrel hovering over the meadow.' },
    { id: 'b', title: '', text: 'Kestrel nest in the meadow wall.' },
    { id: 'c', title: '', text: 'Barn owl in the meadow at dusk.' },
  ];

  it('weighs terms by the whole corpus: IDF and BM25 from its passage count and document frequencies', () => {
    const own = new CorpusIndex(part);
    // In the part, "kestrel" is in 2 of 3 passages; in the corpus, in 2 of 10,000, and "meadow" in 5,000.
    const df = new Map([['kestrel', 2], ['meadow', 5000], ['owl', 40]]);
    const whole = new CorpusIndex(part, undefined, { ...DEFAULT_CORPUS_INDEX, wholeCorpus: false, corpusStats: { size: 10_000, df } });
    expect(own.idf('kestrel')).toBeCloseTo(Math.log(1 + 3 / 2));
    expect(whole.idf('kestrel')).toBeCloseTo(Math.log(1 + 10_000 / 2));
    expect(whole.idf('meadow')).toBeCloseTo(Math.log(1 + 10_000 / 5000));
    // The local count is a floor: a term the corpus statistics lack keeps its own frequency.
    expect(whole.df('kestrel')).toBe(2);
    const [k, m] = [whole.searchTerms(['kestrel'], { limit: 1 })[0]!.score, whole.searchTerms(['meadow'], { limit: 1 })[0]!.score];
    expect(k / m).toBeGreaterThan(5);
    const [ok, om] = [own.searchTerms(['kestrel'], { limit: 1 })[0]!.score, own.searchTerms(['meadow'], { limit: 1 })[0]!.score];
    expect(ok / om).toBeLessThan(5);
  });
});

describe('CorpusIndex terms', () => {
  /** Passages of 200 term occurrences each over a vocabulary of 500 terms (as a store's analysed terms). */
  const size = 3000;
  const passages = Array.from({ length: size }, (_, i) => ({ id: `p${i}`, title: `T${i % 50}`, text: 'x' }));
  const analyzed = passages.map((_, i) => ({ text: Array.from({ length: 200 }, (_, k) => `term${(i * 7 + k * 13) % 500}`).join(' '), title: `t${i % 50}` }));
  const gc = (): void => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require('node:v8').setFlagsFromString('--expose-gc');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    (require('node:vm').runInNewContext('gc') as () => void)();
  };

  it('keeps one string per distinct term, not one per occurrence, and reads them back in order', async () => {
    gc();
    const before = process.memoryUsage().heapUsed;
    const index = await CorpusIndex.build(passages, analyzed);
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    // 600,000 occurrences: as strings of their own they took 19.8 MB of heap here.
    expect(grown).toBeLessThan(8 * 2 ** 20);
    expect(index.termsOf('p7')).toEqual([...analyzed[7]!.text.split(' '), 't7']);
    expect(index.termsOf('nope')).toEqual([]);
    expect(index.df('term0')).toBe(new CorpusIndex(passages, { version: 1, analyzed }).df('term0'));
    // What crosses to the profile thread: the same analysed fields, read back from the packed terms.
    expect(index.analyzed).toEqual(analyzed);
    const odd = [{ text: '', title: 'only title' }, { text: 'two  spaces', title: '' }, { text: 'a', title: 'a' }];
    expect(new CorpusIndex(odd.map((_, i) => ({ id: `o${i}`, title: 'x', text: 'x' })), { version: 1, analyzed: odd }).analyzed).toEqual(odd);
  });

  it('keeps every passage\'s TF-IDF vector in flat arrays, not a map per passage', async () => {
    const index = await CorpusIndex.build(passages, analyzed);
    gc();
    const before = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    const norms = passages.map((p) => [...index.vector(p.id).values()].reduce((s, w) => s + w * w, 0));
    gc();
    const grown = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers - before;
    // 600,000 weights (200 distinct terms a passage): 7.2 MB as numbers and doubles; a map per passage took 31.5 MB here.
    expect(grown).toBeLessThan(12 * 2 ** 20);
    for (const norm of norms) expect(norm).toBeCloseTo(1, 12);
    const v = index.vector('p7');
    expect(v.size).toBe(201);
    expect([...v].map(([t]) => t)).toEqual([...analyzed[7]!.text.split(' '), 't7']);
    expect(v.get('term49')).toBe(new Map(v).get('term49'));
    expect(v.get('absent')).toBeUndefined();
  });

  it('weighs itself: passages, packed terms and postings, and its vectors once computed', async () => {
    const index = await CorpusIndex.build(passages, analyzed);
    const before = index.bytes;
    // 600,000 term numbers in the packed terms, and as many postings of 12 bytes.
    expect(before).toBeGreaterThan(600_000 * (4 + 12));
    index.vector('p1');
    expect(index.bytes - before).toBeGreaterThan(603_000 * 12);
  });

  it('compares a passage with a centroid, or two passages, as cosine of their vectors does, to the bit', async () => {
    const index = await CorpusIndex.build(passages, analyzed);
    const asMap = (id: string): Map<string, number> => new Map(index.vector(id));
    // A small centroid (fewer terms than a passage) and a large one: either side may be the one looked up.
    const small = new Map([...asMap('p1')].slice(0, 50).map(([t, w], i) => [t, w * (i + 1)]));
    const large = new Map([...asMap('p2'), ...asMap('p3')]);
    for (const id of ['p1', 'p4', 'p99']) {
      expect(index.cosineTo(id, small)).toBe(cosine(asMap(id), small));
      expect(index.cosineTo(id, large)).toBe(cosine(asMap(id), large));
      expect(index.similarity(id, 'p2')).toBe(cosine(asMap(id), asMap('p2')));
    }
    expect(index.cosineTo('absent', small)).toBe(0);
    expect(index.similarity('absent', 'p2')).toBe(0);
  });
});
