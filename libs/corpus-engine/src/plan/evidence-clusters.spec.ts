import { describe, expect, it } from 'vitest';
import { CorpusIndex } from '../index/corpus-index';
import { evidenceGap } from './evidence-clusters';

describe('evidenceGap', () => {
  // Two groups of similar passages (kestrels, harbour ferries) and one passage on its own (a bakery).
  const index = new CorpusIndex([
    { id: 'k1', title: '', text: 'Kestrel hovering over the meadow, hunting voles.' },
    { id: 'k2', title: '', text: 'A kestrel hunting voles above the meadow grass.' },
    { id: 'f1', title: '', text: 'Harbour ferry timetable for the winter crossings.' },
    { id: 'f2', title: '', text: 'The winter ferry crossings leave the harbour hourly.' },
    { id: 'b1', title: '', text: 'Sourdough loaves baked before dawn.' },
    ...Array.from({ length: 20 }, (_, i) => ({ id: `x${i}`, title: '', text: `Unrelated filler passage number ${i} about topic${i}.` })),
  ]);
  const evidence = ['k1', 'k2', 'f1', 'f2', 'b1'];

  it('clusters similar evidence passages and counts the clusters the ledger has not touched', () => {
    expect(evidenceGap(index, evidence, new Set())).toEqual({ missingPassages: 5, clusters: 3, untouchedClusters: 3 });
    // One kestrel passage touches the kestrel cluster: the other is still missing as a passage, not as a cluster.
    expect(evidenceGap(index, evidence, new Set(['k1']))).toEqual({ missingPassages: 4, clusters: 3, untouchedClusters: 2 });
    expect(evidenceGap(index, evidence, new Set(['k2', 'f1', 'b1']))).toEqual({ missingPassages: 2, clusters: 3, untouchedClusters: 0 });
  });

  it('links passages only at the given cosine: at 1 every passage is its own cluster', () => {
    expect(evidenceGap(index, evidence, new Set(['k1']), 1)).toEqual({ missingPassages: 4, clusters: 5, untouchedClusters: 4 });
  });

  it('is empty for no evidence, and ignores ledger passages outside the evidence', () => {
    expect(evidenceGap(index, [], new Set(['k1']))).toEqual({ missingPassages: 0, clusters: 0, untouchedClusters: 0 });
    expect(evidenceGap(index, ['b1'], new Set(['x3']))).toEqual({ missingPassages: 1, clusters: 1, untouchedClusters: 1 });
  });
});
