import { describe, expect, it } from 'vitest';
import { attachFringe, completeFromPartition, localCommunity, type Partition } from './local-community';

/** Two dense clusters (a0..a7, b0..b7) joined by one weak edge, plus a sparse tail off cluster b. */
function graph(): (id: string) => { id: string; score: number }[] {
  const edges = new Map<string, { id: string; score: number }[]>();
  const link = (u: string, v: string, w: number): void => {
    edges.set(u, [...(edges.get(u) ?? []), { id: v, score: w }]);
    edges.set(v, [...(edges.get(v) ?? []), { id: u, score: w }]);
  };
  for (const c of ['a', 'b']) for (let i = 0; i < 8; i++) for (let j = i + 1; j < 8; j++) if ((i + j) % 3 !== 0) link(`${c}${i}`, `${c}${j}`, 0.6);
  link('a7', 'b0', 0.2);
  for (let i = 0; i < 6; i++) link(i ? `t${i - 1}` : 'b3', `t${i}`, 0.3);
  return (id) => edges.get(id) ?? [];
}

describe('localCommunity (personalized PageRank + conductance sweep)', () => {
  it('returns the seeds\u2019 cluster and stops at the weak edge', () => {
    const c = localCommunity([{ id: 'a0', weight: 1 }, { id: 'a3', weight: 0.5 }], graph(), { depth: 4, maxNodes: 100, alpha: 0.15, iterations: 60, minSize: 3, maxSize: 20, sizePenalty: 0 });
    expect(new Set(c.members.map((m) => m.id))).toEqual(new Set(['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7']));
    expect(c.conductance).toBeLessThan(0.1);
    expect(c.members[0]!.rank).toBeGreaterThanOrEqual(c.members.at(-1)!.rank);
  });

  it('is deterministic, and empty without seeds', () => {
    const o = { depth: 3, maxNodes: 100, alpha: 0.15, iterations: 40, minSize: 3, maxSize: 20, sizePenalty: 0.2 };
    expect(localCommunity([{ id: 'b1', weight: 1 }], graph(), o)).toEqual(localCommunity([{ id: 'b1', weight: 1 }], graph(), o));
    expect(localCommunity([], graph(), o).members).toEqual([]);
  });
});

describe('attachFringe', () => {
  /** Community a0..a5; fringe f0..f2 (each other's neighbours, tied to a); document d0..d5 next to a, tied mostly to itself. */
  function fringeGraph(): (id: string) => { id: string; score: number }[] {
    const edges = new Map<string, { id: string; score: number }[]>();
    const arc = (u: string, v: string, w: number): void => void edges.set(u, [...(edges.get(u) ?? []), { id: v, score: w }]);
    const link = (u: string, v: string, w: number): void => (arc(u, v, w), arc(v, u, w));
    for (let i = 0; i < 6; i++) for (let j = i + 1; j < 6; j++) link(`a${i}`, `a${j}`, 0.6);
    for (let i = 0; i < 3; i++) for (let j = i + 1; j < 3; j++) link(`f${i}`, `f${j}`, 0.5);
    for (let i = 0; i < 3; i++) link(`f${i}`, `a${i}`, 0.3);
    for (let i = 0; i < 6; i++) for (let j = i + 1; j < 6; j++) link(`d${i}`, `d${j}`, 0.6);
    link('d0', 'a5', 0.3);
    return (id) => edges.get(id) ?? [];
  }
  const community = new Set(['a0', 'a1', 'a2', 'a3', 'a4', 'a5']);

  it('takes in a group whose edges leave it for the community, and not a neighbouring document', () => {
    expect(attachFringe(community, fringeGraph(), { ratio: 1.5, maxShare: 0.5 })).toEqual(['f0', 'f1', 'f2']);
  });

  it('keeps out a group larger than its share of the community', () => {
    expect(attachFringe(community, fringeGraph(), { ratio: 1.5, maxShare: 0.4 })).toEqual([]);
  });
});

describe('completeFromPartition', () => {
  const clusters = [['a0', 'a1', 'a2', 'x0', 'x1'], ['a3', 'y0'], ['a4', 'a5', 'z0', 'z1', 'z2']];
  const partition: Partition = {
    clusterOf: (id) => clusters.findIndex((c) => c.includes(id)),
    membersOf: (c) => clusters[c] ?? [],
  };
  const community = new Set(['a0', 'a1', 'a2', 'a3', 'a4', 'a5']);
  /** x0's nearest neighbour is a member; x1's is z0, outside. Every other passage's is outside too. */
  const nearest: Record<string, string> = { x0: 'a1', x1: 'z0', y0: 'a3', z0: 'a4', z1: 'z2', z2: 'z1' };
  const neighbors = (id: string): { id: string; score: number }[] => (nearest[id] ? [{ id: nearest[id], score: 0.3 }] : []);

  it('takes from a cluster mostly in the community the passages whose nearest neighbour is a member', () => {
    // Cluster 0 is 3/5 in: x0 joins, x1 (nearest z0) does not. Cluster 1 has one member only; cluster 2 is 2/5 in.
    expect(completeFromPartition(community, partition, 0.5, neighbors)).toEqual(['x0']);
  });

  it('takes nothing from a cluster below the share', () => {
    expect(completeFromPartition(community, partition, 0.7, neighbors)).toEqual([]);
    expect(completeFromPartition(community, partition, 0.4, neighbors)).toEqual(['x0', 'z0']);
  });
});
