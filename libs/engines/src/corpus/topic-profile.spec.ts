import { describe, expect, it } from 'vitest';
import { CorpusIndex } from './corpus-index';
import { analyzeTerms } from './text-analysis';
import { qualifierTermsOf, TopicProfile } from './topic-profile';

describe('qualifierTermsOf', () => {
  it('reads a title\'s trailing parenthetical qualifier, and nothing else', () => {
    expect(qualifierTermsOf('Takeoff (rapper)')).toEqual(analyzeTerms('rapper'));
    expect(qualifierTermsOf('Sardar (2022 film)')).toEqual(analyzeTerms('2022 film'));
    expect(qualifierTermsOf('Hurricane Idalia')).toEqual([]);
    expect(qualifierTermsOf('(rapper)')).toEqual([]);
    expect(qualifierTermsOf('Effects (of the storm) on farming')).toEqual([]);
  });
});

describe('TopicProfile seeds', () => {
  it('never seeds on a passage that matches only the title\'s qualifier', () => {
    // "Mercury (band)": the band's passages name Mercury; a wedding-band article says "band" often, and
    // "band" is the rarer word here, so by IDF alone its passages would pass as seeds.
    const passages = [
      ...['formed in Leeds', 'released its first album', 'toured Europe', 'split after a decade', 'reunited for a festival'].map((t, i) => ({ id: `m${i}`, title: '', text: `Mercury ${t}, and the Mercury singers wrote the songs.` })),
      ...['gold', 'silver', 'platinum'].map((t, i) => ({ id: `w${i}`, title: '', text: `A ${t} band, a wedding band, a band for the ring finger: the band is engraved.` })),
      ...Array.from({ length: 14 }, (_, i) => ({ id: `x${i}`, title: '', text: `Mercury is a planet close to the sun, note ${i}, and Mercury is small.` })),
      ...Array.from({ length: 20 }, (_, i) => ({ id: `f${i}`, title: '', text: `Unrelated filler about harbours, trains and weather, number ${i}.` })),
    ];
    const index = new CorpusIndex(passages);
    expect(index.df(analyzeTerms('band')[0]!)).toBeLessThan(index.df(analyzeTerms('mercury')[0]!));
    const profile = new TopicProfile(index, 'Mercury (band)');
    expect(profile.seeds.length).toBeGreaterThan(0);
    expect(profile.seeds.filter((id) => id.startsWith('w'))).toEqual([]);
  });
});
