import { describe, expect, it } from 'vitest';
import { CorpusIndex } from '../index/corpus-index';
import { corpusPartition } from './corpus-partition';

/** Two subjects, six passages each, that share no content word. */
const passages = [
  ...['nest', 'hover', 'prey', 'wing', 'cliff', 'moult'].map((w, i) => ({
    id: `k${i}`,
    title: '',
    text: `Kestrel falcons ${w} along the windy coast; the kestrel ${w}s where falcons hunt voles.`,
  })),
  ...['hull', 'sail', 'keel', 'mast', 'rudder', 'anchor'].map((w, i) => ({
    id: `s${i}`,
    title: '',
    text: `Schooner crews mend the ${w} in harbour; a schooner ${w} needs tar and rope.`,
  })),
];
const options = { neighbors: 4, resolution: 1 };

describe('corpusPartition', () => {
  it('puts passages on one subject in one cluster and apart from the other subject', () => {
    const p = corpusPartition(new CorpusIndex(passages), options);
    const kestrel = new Set(passages.slice(0, 6).map((x) => p.clusterOf(x.id)));
    const schooner = new Set(passages.slice(6).map((x) => p.clusterOf(x.id)));
    expect(kestrel.size).toBe(1);
    expect(schooner.size).toBe(1);
    expect([...kestrel][0]).not.toBe([...schooner][0]);
    expect(p.membersOf(p.clusterOf('k0')!)).toEqual(['k0', 'k1', 'k2', 'k3', 'k4', 'k5']);
  });

  it('is the same in every process: two indexes of the same passages are partitioned alike', () => {
    const clusters = (index: CorpusIndex) => passages.map((x) => corpusPartition(index, options).clusterOf(x.id));
    expect(clusters(new CorpusIndex(passages))).toEqual(clusters(new CorpusIndex(passages)));
  });
});
