import { describe, expect, it } from 'vitest';
import { CorpusIndex, DEFAULT_CORPUS_INDEX } from '../index/corpus-index';
import { analyzeTerms } from '@orrery/language';
import { DEFAULT_TOPIC_PROFILE, qualifierTermsOf, TopicProfile, topicTermsOf } from './topic-profile';

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

describe('topicTermsOf on a working index (part of a larger corpus)', () => {
  const term = (w: string): string => analyzeTerms(w)[0]!;
  /** A working index of `passages`, weighed by a 10,000-passage corpus in which each term has the given df. */
  const working = (passages: { id: string; title: string; text: string }[], corpusDf: Record<string, number>): CorpusIndex =>
    new CorpusIndex(passages, undefined, { ...DEFAULT_CORPUS_INDEX, wholeCorpus: false, corpusStats: { size: 10_000, df: new Map(Object.entries(corpusDf).map(([w, n]) => [term(w), n])) } });

  it('keeps the subject its search brought, though most of the working index holds it, and drops the words that came along', () => {
    // The topic's own hits make "openssl" common here; in the corpus it is rare. Counted in the working index, only
    // the incidental "choose" stayed uncommon, and the topic became "choose".
    const index = working(
      [
        ...Array.from({ length: 15 }, (_, i) => ({ id: `o${i}`, title: '', text: `openssl verifies certificate chain ${i} against the trust store` })),
        { id: 'c0', title: '', text: 'choose an option from the menu' },
        ...Array.from({ length: 4 }, (_, i) => ({ id: `f${i}`, title: '', text: `unrelated filler passage ${i} about harbours` })),
      ],
      { openssl: 20, choose: 100, certificates: 60, trusted: 80 },
    );
    expect(topicTermsOf(index, 'How does OpenSSL choose the trusted certificates?')).toEqual([term('openssl'), term('trusted'), term('certificates')]);
  });

  it('drops a question word that is rare in the corpus but no more frequent in the working index than there', () => {
    const index = working(
      [
        ...Array.from({ length: 10 }, (_, i) => ({ id: `c${i}`, title: '', text: `the crontab format line ${i} gives minute hour day` })),
        ...Array.from({ length: 3 }, (_, i) => ({ id: `l${i}`, title: '', text: `look at the page ${i}` })),
        ...Array.from({ length: 7 }, (_, i) => ({ id: `f${i}`, title: '', text: `unrelated filler passage ${i} about harbours` })),
      ],
      { crontab: 10, format: 500, look: 800 },
    );
    expect(topicTermsOf(index, 'What does the crontab file format look like?')).toEqual([term('crontab')]);
  });

  it('counts shares in the index itself when it is the whole corpus (as before)', () => {
    const passages = [
      ...Array.from({ length: 30 }, (_, i) => ({ id: `p${i}`, title: '', text: `the president spoke about budgets ${i}` })),
      ...Array.from({ length: 2 }, (_, i) => ({ id: `m${i}`, title: '', text: `the president spoke about immigration ${i}` })),
    ];
    expect(topicTermsOf(new CorpusIndex(passages), 'How have presidents talked about immigration?')).toEqual([term('immigration')]);
  });
});
