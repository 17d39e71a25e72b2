import { describe, expect, it } from 'vitest';
import { CorpusIndex, DEFAULT_CORPUS_INDEX } from './corpus-index';
import { analyzeTerms } from './text-analysis';
import { DEFAULT_TOPIC_PROFILE, qualifierTermsOf, TopicProfile } from './topic-profile';

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

describe('TopicProfile on a large corpus', () => {
  const words = ['nest', 'hover', 'prey', 'wing', 'cliff', 'moult', 'egg', 'vole', 'perch', 'dive', 'field', 'tail'];
  const passages = [
    ...words.flatMap((w, i) => [0, 1].map((j) => ({ id: `k${i}-${j}`, title: '', text: `Kestrel falcons ${w} along the coast; the kestrel ${w}s where falcons hunt, ${words[(i + j + 1) % words.length]} too.` }))),
    ...words.flatMap((w, i) => [0, 1].map((j) => ({ id: `s${i}-${j}`, title: '', text: `Schooner crews mend the ${w}board in harbour; a schooner ${w}board needs tar, and ${words[(i + j + 1) % words.length]}rope.` }))),
  ];
  const profileWith = (maxCorpus: number, wholeCorpus = true) => {
    const index = new CorpusIndex(passages, undefined, { ...DEFAULT_CORPUS_INDEX, wholeCorpus });
    const probed = new Set<string>();
    const neighbors = index.neighbors.bind(index);
    index.neighbors = (id, k) => (probed.add(id), neighbors(id, k));
    const o = { ...DEFAULT_TOPIC_PROFILE, communityMinCorpus: 10, maxConductance: 1 };
    const profile = new TopicProfile(index, 'Kestrel', { ...o, partition: { ...o.partition, maxCorpus } });
    return { profile, probed: [...probed] };
  };

  it('goes without the corpus-wide partition above its size cap: no neighbour search for every passage', () => {
    // Control: under the cap the partition probes every passage, the other subject's too.
    const small = profileWith(1_000);
    expect(small.profile.communityCut).not.toBeNull();
    expect(small.probed.filter((id) => id.startsWith('s')).length).toBe(24);
    const large = profileWith(40);
    expect(large.profile.communityCut).not.toBeNull();
    expect(large.probed.filter((id) => id.startsWith('s'))).toEqual([]);
    expect(large.profile.evidence.map((e) => e.id).filter((id) => id.startsWith('k')).length).toBeGreaterThan(0);
  });

  it('builds nothing corpus-wide on a working index of part of a corpus', () => {
    const part = profileWith(1_000, false);
    expect(part.profile.communityCut).not.toBeNull();
    expect(part.probed.filter((id) => id.startsWith('s'))).toEqual([]);
  });
});
