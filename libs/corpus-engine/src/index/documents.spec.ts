import { describe, expect, it } from 'vitest';
import { CorpusIndex } from './corpus-index';
import { documentStructure } from './documents';
import { mergeFacets, meaningfulCandidate, sameWordFamily, type Facet } from '../plan/facets';
import { diversifyByDocument, namesTopic, type RankedPassage } from '../search/passage-ranking';
import { analyzeTerms } from '@orrery/language';

/** Eight dated "speeches" of nine paragraphs each, two by each president: an address formula opens each, a sign-off closes it. */
function speeches(): CorpusIndex {
  const passages = [];
  for (let d = 0; d < 8; d++) {
    const year = 1900 + d * 15;
    const title = `${year}, President ${String.fromCharCode(65 + Math.floor(d / 2))}`;
    passages.push({ id: `s${d}-p1`, title, text: `Mr. Speaker, honored guests, members of Congress. The harbor works of ${year} continue.` });
    passages.push({ id: `s${d}-p2`, title, text: `Tonight the tariff and the currency occupy us. The tariff protects the mills of ${year}.` });
    passages.push({ id: `s${d}-p3`, title, text: `The railroads and the canals carry grain; tonight we thank the farmers.` });
    for (let k = 5; k <= 9; k++) passages.push({ id: `s${d}-p${k}`, title, text: `The schools, the post roads and the lighthouses, item ${k}, need funds.` });
    passages.push({ id: `s${d}-p4`, title, text: `May God bless you, and God bless these United States.` });
  }
  return new CorpusIndex(passages);
}

describe('documentStructure', () => {
  it('groups passages by title, reads years, and finds the boilerplate at the documents edges', () => {
    const s = documentStructure(speeches());
    expect(s.structured).toBe(true);
    expect(s.dated).toBe(true);
    expect(s.yearOf('s2-p3')).toBe(1930);
    expect(s.boilerplate.has(analyzeTerms('speaker')[0]!)).toBe(true);
    expect(s.boilerplate.has(analyzeTerms('guests')[0]!)).toBe(true);
    expect(s.boilerplate.has(analyzeTerms('tariff')[0]!)).toBe(false);
  });

  it('counts the sections of one file ("a.md > Install", "a.md > Usage") as one document', () => {
    const passages = Array.from({ length: 6 }, (_, d) =>
      ['Install', 'Usage', 'API'].map((h, k) => ({ id: `f${d}.md#${k + 1}`, title: `f${d}.md > ${h}`, text: `Section ${h} of file ${d}.` })),
    ).flat();
    const s = documentStructure(new CorpusIndex(passages));
    expect(s.structured).toBe(true);
    expect(s.documentKeys()).toEqual(['f0.md', 'f1.md', 'f2.md', 'f3.md', 'f4.md', 'f5.md']);
    expect(s.docOf('f2.md#3')).toBe('f2.md');
  });

  it('finds no structure when every passage is its own document', () => {
    const index = new CorpusIndex(Array.from({ length: 10 }, (_, i) => ({ id: `p${i}`, title: `p${i}`, text: `Passage ${i} about storms.` })));
    expect(documentStructure(index).structured).toBe(false);
  });

  it('reads each dated title\'s author, and lists each document\'s passages in order', () => {
    const s = documentStructure(speeches());
    expect(s.authored).toBe(true);
    expect(s.authorOf('s2-p3')).toBe('President B');
    expect(s.authorOf('1930, President B')).toBe('President B');
    expect(s.authors).toEqual(['President A', 'President B', 'President C', 'President D']);
    expect(s.documentKeys()[0]).toBe('1900, President A');
    expect(s.passagesOf('1900, President A').slice(0, 3)).toEqual(['s0-p1', 's0-p2', 's0-p3']);
    // Titles whose names never recur ("2022 AFL Grand Final") name no author.
    const articles = new CorpusIndex(Array.from({ length: 24 }, (_, i) => ({ id: `a${i}`, title: `${2000 + Math.floor(i / 4)} Final ${Math.floor(i / 4)}`, text: `Passage ${i}.` })));
    expect(documentStructure(articles).dated).toBe(true);
    expect(documentStructure(articles).authored).toBe(false);
  });
});

describe('facet labels', () => {
  it('drops pronouns, contractions, address formulas and sentence-start capitals', () => {
    const index = speeches();
    const bp = documentStructure(index).boilerplate;
    const ok = (surface: string): boolean => meaningfulCandidate(index, { key: analyzeTerms(surface).join(' ') || surface.toLowerCase(), surface }, bp);
    expect(ok("I'm")).toBe(false);
    expect(ok('i.')).toBe(false);
    expect(ok('Speaker')).toBe(false);
    expect(ok('honored guests')).toBe(false);
    expect(ok('Tonight')).toBe(false); // written "tonight" mid-sentence
    expect(ok('II')).toBe(false);
    expect(ok('tariff')).toBe(true);
  });

  it('merges word forms of one family and facets whose passages coincide', () => {
    const facet = (label: string, ids: string[], salience: number): Facet => ({
      key: label.toLowerCase(),
      label,
      terms: label.toLowerCase().split(' '),
      passageIds: ids,
      mass: ids.length,
      salience,
    });
    expect(sameWordFamily('America', 'American')).toBe(true);
    expect(sameWordFamily('China', 'Chinese')).toBe(true);
    expect(sameWordFamily('inflation', 'infrastructure')).toBe(false);
    const merged = mergeFacets([
      facet('American', ['a', 'b', 'c'], 9),
      facet('tax cuts', ['d', 'e', 'f'], 8),
      facet('America', ['g'], 7),
      facet('tax relief', ['d', 'e', 'f', 'h'], 6),
      facet('border', ['x', 'y'], 5),
    ]);
    expect(merged.map((f) => f.label)).toEqual(['American', 'tax cuts', 'border']);
    expect(merged[0]!.passageIds).toEqual(['a', 'b', 'c', 'g']);
  });
});

describe('document diversity', () => {
  it('spreads a subtopic result over documents and years', () => {
    const s = documentStructure(speeches());
    const r = (id: string, score: number): RankedPassage => ({ id, score, topicScore: 1, topicTerms: [], facetTerms: [], known: false });
    // The best passages are all in the latest speech; the next best are from other decades.
    const ranked = [r('s7-p2', 1), r('s7-p3', 0.95), r('s7-p1', 0.9), r('s6-p2', 0.7), r('s0-p2', 0.6), r('s1-p2', 0.5)];
    const out = diversifyByDocument(s, ranked, new Set(), 3).map((x) => x.id);
    expect(out[0]).toBe('s7-p2');
    expect(out).toContain('s0-p2');
    expect(new Set(out.map((id) => id.split('-')[0])).size).toBe(3);
    // A document already in the ledger yields to one that is not.
    expect(diversifyByDocument(s, ranked, new Set(['s7-p4']), 1)[0]!.id).not.toMatch(/^s7-/);
  });

  it('namesTopic wants the topic words close together', () => {
    expect(namesTopic(analyzeTerms('a graduated income tax was proposed'), analyzeTerms('income tax'))).toBe(true);
    expect(namesTopic(analyzeTerms('the income derived from the mills has grown large while every duty and tax fell'), analyzeTerms('income tax'))).toBe(false);
  });
});
