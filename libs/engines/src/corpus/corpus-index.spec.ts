import { describe, expect, it } from 'vitest';
import { CorpusIndex, DEFAULT_CORPUS_INDEX } from './corpus-index';

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
