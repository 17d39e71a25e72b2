import { describe, expect, it } from 'vitest';
import { CorpusIndex } from '../index/corpus-index';
import { rankForSubtopic, type SubtopicQuery } from './passage-ranking';
import { TopicProfile } from '../profile/topic-profile';

/** Certificates in several tools, each passage naming one or two of them. */
function passages() {
  const tools = ['nginx', 'openssl', 'certbot', 'curl', 'apache'];
  return Array.from({ length: 60 }, (_, i) => ({
    id: `p${i}`,
    title: '',
    text: `The ${tools[i % 5]} tool checks the TLS certificate chain${i % 3 === 0 ? ` and ${tools[(i + 2) % 5]} renews the certificate` : ''}; note ${i}.`,
  }));
}

describe('rankForSubtopic', () => {
  it('ranks a subtopic asked again with other exclusions and known sources as it ranks it asked first', () => {
    const asked: SubtopicQuery[] = [
      { query: 'TLS certificate nginx', include: ['nginx'], exclude: [], limit: 40 },
      { query: 'TLS certificate nginx', include: ['nginx'], exclude: ['openssl', 'curl'], limit: 40 },
      { query: 'TLS certificate nginx', include: ['nginx'], exclude: ['apache'], known: new Set(['p0', 'p5']), limit: 40 },
      { query: 'TLS certificate', include: [], exclude: ['certbot'], limit: 40 },
      { query: 'TLS certificate nginx', include: ['nginx'], exclude: [], limit: 40 },
    ];
    const index = new CorpusIndex(passages());
    const profile = new TopicProfile(index, 'TLS certificates');
    const again = asked.map((q) => rankForSubtopic(index, profile, q));
    // Each on an index and profile of its own: nothing asked before.
    const first = asked.map((q) => {
      const own = new CorpusIndex(passages());
      return rankForSubtopic(own, new TopicProfile(own, 'TLS certificates'), q);
    });
    expect(again).toEqual(first);
    expect(again[1]!.map((r) => r.id)).not.toEqual(again[0]!.map((r) => r.id));
    expect(again[4]).toEqual(again[0]);
  });
});
