import { describe, expect, it } from 'vitest';
import { CorpusIndex } from '../index/corpus-index';
import { nameShare, pruneSiblingDocuments } from './sibling-documents';
import { analyzeTerms } from '@orrery/language';

const term = (w: string): string => analyzeTerms(w)[0]!;

const alphaFacts = ['crossed Okinawa', 'flooded Busan harbour', 'cut power in Ulsan', 'grounded flights at Naha', 'closed schools in Pohang', 'toppled cranes at Jeju', 'stranded ferries near Geoje', 'soaked the Kyushu coast'];
const betaFacts = ['struck Madagascar', 'battered Mauritius', 'reached Reunion', 'destroyed homes in Mananjary', 'flooded Antananarivo', 'tore roofs off in Toamasina', 'cut roads to Fianarantsoa', 'swamped Mahanoro', 'hit Vatovavy', 'stalled over Ikongo'];

/**
 * "Typhoon Alpha"'s community has swallowed a sibling document: every passage of "Cyclone Beta". Alpha's own
 * passages name Alpha; one of them also mentions Beta, and two mention London, a name many documents share.
 */
function mergedCommunity(): { index: CorpusIndex; members: Map<string, number>; seeds: string[] } {
  const passages = [
    ...alphaFacts.map((f, i) => ({ id: `a${i}`, title: '', text: `Typhoon Alpha ${f}, and Alpha's rain ${f.split(' ').pop()} residents recall.` })),
    { id: 'a-beta', title: '', text: 'Forecasters compared Alpha with Beta, though Alpha crossed Okinawa and flooded Busan harbour.' },
    { id: 'a-london', title: '', text: 'Insurers in London priced the damage Alpha did when it flooded Busan harbour.' },
    { id: 'a-london2', title: '', text: 'A London relief fund helped Ulsan after Alpha cut power in Ulsan.' },
    ...betaFacts.map((f, i) => ({ id: `b${i}`, title: '', text: `Cyclone Beta ${f}; Beta left ${f.split(' ').pop()} and Madagascar mourning as Beta weakened near Mauritius.` })),
    ...Array.from({ length: 12 }, (_, i) => ({ id: `l${i}`, title: '', text: `London topic ${i}: ${['a museum', 'a bank', 'a theatre', 'a court'][i % 4]} opened in London, report ${i * 7}.` })),
    ...Array.from({ length: 700 }, (_, i) => ({ id: `f${i}`, title: '', text: `Unrelated filler ${i} about harbours, trains, weather and gardens, item ${i % 37}.` })),
  ];
  const index = new CorpusIndex(passages);
  const ids = passages.filter((p) => /^[ab]/.test(p.id)).map((p) => p.id);
  return { index, members: new Map(ids.map((id) => [id, 0.5])), seeds: ['a0', 'a1', 'a2'] };
}

describe('nameShare', () => {
  it('tells a name (capitalized mid-sentence) from a type noun written in lower case', () => {
    const index = new CorpusIndex([
      { id: 'p1', title: '', text: 'Forecasters said Hilary strengthened. The hurricane turned north and the hurricane weakened.' },
      { id: 'p2', title: '', text: 'Hurricane Hilary made landfall, then Hilary and the hurricane moved inland.' },
    ]);
    expect(nameShare(index, term('Hilary'))).toBe(1);
    expect(nameShare(index, term('hurricane'))).toBeLessThan(0.8);
  });
});

describe('pruneSiblingDocuments', () => {
  it('removes a sibling document the community swallowed, and keeps the topic passages that mention its name', () => {
    const { index, members, seeds } = mergedCommunity();
    const out = pruneSiblingDocuments({ index, terms: analyzeTerms('Typhoon Alpha'), seeds, members, neighbors: 8 });
    expect(out.names).toContain(term('Beta'));
    expect(out.names).not.toContain(term('London'));
    expect([...members.keys()].filter((id) => id.startsWith('b'))).toEqual([]);
    expect([...members.keys()].filter((id) => id.startsWith('a')).sort()).toEqual([...alphaFacts.map((_, i) => `a${i}`), 'a-beta', 'a-london', 'a-london2'].sort());
    expect(out.pruned).toBe(betaFacts.length);
  });

  it('prunes nothing from a community that is one document', () => {
    const { index, members, seeds } = mergedCommunity();
    for (const id of [...members.keys()]) if (id.startsWith('b')) members.delete(id);
    const before = [...members.keys()];
    const out = pruneSiblingDocuments({ index, terms: analyzeTerms('Typhoon Alpha'), seeds, members, neighbors: 8 });
    expect(out).toEqual({ names: [], pruned: 0 });
    expect([...members.keys()]).toEqual(before);
  });
});
