import { describe, expect, it } from 'vitest';
import { CorpusIndex } from '../index/corpus-index';
import { mineFacets } from './facets';
import { facetTitle } from './subtopic-builder';
import { analyzeTerms } from '@orrery/language';

describe('mineFacets', () => {
  it('finds the phrases several passages share, minus the topic itself', () => {
    const texts = [
      'Hurricane Zelda pushed a storm surge into Port Marlow.',
      'The storm surge from Hurricane Zelda flooded Port Marlow homes.',
      'A record storm surge followed Hurricane Zelda.',
      'Governor Amelia Hask ordered evacuations before Hurricane Zelda.',
      'Governor Amelia Hask opened shelters during Hurricane Zelda.',
      'Hurricane Zelda formed from a tropical wave.',
    ];
    const index = new CorpusIndex(texts.map((text, i) => ({ id: `p${i}`, title: `p${i}`, text })));
    const facets = mineFacets(
      index,
      texts.map((_, i) => ({ id: `p${i}`, score: 1 })),
      { topicTerms: new Set(analyzeTerms('Hurricane Zelda')), minSupport: 2, maxShare: 0.9, limit: 20 },
    );
    const byLabel = new Map(facets.map((f) => [f.label.toLowerCase(), f]));
    expect(byLabel.get('storm surge')?.passageIds).toEqual(['p0', 'p1', 'p2']);
    expect(byLabel.get('port marlow')?.passageIds).toEqual(['p0', 'p1']);
    expect([...byLabel.keys()].some((l) => l.includes('hask'))).toBe(true);
    expect(facets.some((f) => f.terms.includes('zelda') || f.terms.includes(analyzeTerms('hurricane')[0]!))).toBe(false);
    expect(byLabel.has('tropical wave')).toBe(false); // only one passage
  });

  it('titles a facet as its passages write it, with the topic\'s word where it belongs to the facet', () => {
    const texts = [
      'Illegal immigration across the southern border rose again.',
      'Congress must act on illegal immigration and the border.',
      'We will end illegal immigration with new enforcement.',
      'The steamship companies bring immigration from Europe.',
      'Steamship companies must answer for the immigration they solicit.',
      'Immigration laws were revised.',
    ];
    const index = new CorpusIndex(texts.map((text, i) => ({ id: `p${i}`, title: `p${i}`, text })));
    const facets = mineFacets(index, texts.map((_, i) => ({ id: `p${i}`, score: 1 })), { topicTerms: new Set(analyzeTerms('immigration')), minSupport: 2, maxShare: 0.9, limit: 20 });
    const byLabel = new Map(facets.map((f) => [f.label.toLowerCase(), f]));
    expect(byLabel.get('illegal')?.title.toLowerCase()).toBe('illegal immigration');
    expect(facetTitle(byLabel.get('illegal')!)).toBe('Illegal immigration');
    expect(facetTitle({ title: 'inHg' })).toBe('inHg');
    expect(facetTitle({ title: 'SCHOOLS' })).toBe('Schools');
  });
});

describe('topic terms and labels of a question', () => {
  it('keeps the subject of a question, not its framing or its agent', async () => {
    const { CorpusIndex } = await import('../index/corpus-index');
    const { topicTermsOf } = await import('../profile/topic-profile');
    const { subjectOf } = await import('@orrery/language');
    const index = new CorpusIndex([
      { id: 'a', title: 'a', text: 'The president talked about immigration and the border.' },
      { id: 'b', title: 'b', text: 'The president addressed the economy and inflation.' },
      { id: 'c', title: 'c', text: 'Hurricane Idalia made landfall in the Big Bend.' },
    ]);
    expect(topicTermsOf(index, 'How have presidents talked about immigration?')).toEqual(['immigr']);
    expect(topicTermsOf(index, 'How have presidents addressed the economy?')).toEqual(['economi']);
    expect(topicTermsOf(index, 'Hurricane Idalia')).toEqual(['hurrican', 'idalia']);
    expect(subjectOf('How have U.S. presidents talked about immigration?')).toBe('immigration');
    expect(subjectOf('How have presidents addressed the economy?')).toBe('the economy');
    expect(subjectOf('Hurricane Idalia')).toBe('Hurricane Idalia');
  });
});
