import Graph from 'graphology';
import louvain from 'graphology-communities-louvain';
import type { CorpusIndex } from '../index/corpus-index';
import type { Partition } from './local-community';

export interface PartitionOptions {
  /** Neighbours per passage in the similarity graph. */
  neighbors: number;
  /** Louvain resolution: higher gives more, smaller clusters. */
  resolution: number;
}

const SEED = 42;

/**
 * The corpus's passages partitioned by Louvain community detection on the k-nearest-neighbour similarity
 * graph. Unlike a topic's local community, which keeps only what is well linked to its seeds, a global
 * partition makes clusters compete: a weakly linked passage still lands with the passages it is most tied
 * to. Deterministic (seeded, in corpus order), so every process computes the same partition. Built once
 * per index and options, unless given (`seedClusters`: a store keeps it from the corpus's ingest).
 */
export function corpusPartition(index: CorpusIndex, options: PartitionOptions): Partition {
  return memoOf(index, partitionName(options), () => buildClusters(index, options)).partition;
}

/** The same partition as the cluster of every passage, in corpus order (what crosses to another thread or a store). */
export function partitionClusters(index: CorpusIndex, options: PartitionOptions): readonly number[] {
  return memoOf(index, partitionName(options), () => buildClusters(index, options)).clusters;
}

/** The name a partition's options give it: what a store keeps it under. */
export const partitionName = (options: PartitionOptions): string => `k${options.neighbors}-r${options.resolution}`;

/** Every partition built or given for this index so far, by name: the cluster of each passage, in corpus order. */
export function knownClusters(index: CorpusIndex): Record<string, readonly number[]> {
  return Object.fromEntries([...(memo.get(index) ?? new Map<string, Memo>())].map(([name, m]) => [name, m.clusters]));
}

/**
 * Gives the index a partition computed before (in another thread or process, on the same passages in the same order),
 * so `corpusPartition` answers it without building it; false when it does not fit the index (and nothing is given).
 */
export function seedClusters(index: CorpusIndex, name: string, clusters: readonly number[]): boolean {
  if (clusters.length !== index.size || !clusters.every((c) => Number.isInteger(c) && c >= 0)) return false;
  memoOf(index, name, () => clusters);
  return true;
}

interface Memo {
  clusters: readonly number[];
  partition: Partition;
}

const memo = new WeakMap<CorpusIndex, Map<string, Memo>>();

function memoOf(index: CorpusIndex, name: string, clustersOf: () => readonly number[]): Memo {
  let byName = memo.get(index);
  if (!byName) memo.set(index, (byName = new Map()));
  let m = byName.get(name);
  if (!m) {
    const clusters = clustersOf();
    m = { clusters, partition: fromClusters(index, clusters) };
    byName.set(name, m);
  }
  return m;
}

/** Cluster number of every passage, in corpus order. */
function buildClusters(index: CorpusIndex, options: PartitionOptions): number[] {
  const ids = index.passages.map((p) => p.id);
  const graph = new Graph({ type: 'undirected' });
  for (const id of ids) graph.addNode(id);
  for (const id of ids)
    for (const n of index.neighbors(id, options.neighbors)) {
      if (n.id === id || n.score <= 0) continue;
      // The kNN relation is not symmetric: an edge both ways keeps the stronger similarity.
      if (graph.hasEdge(id, n.id)) graph.updateEdgeAttribute(id, n.id, 'weight', (w: number | undefined) => Math.max(w ?? 0, n.score));
      else graph.addEdge(id, n.id, { weight: n.score });
    }
  const communities = louvain(graph, { resolution: options.resolution, getEdgeWeight: 'weight', rng: parkMiller(SEED) });
  return ids.map((id) => communities[id]!);
}

function fromClusters(index: CorpusIndex, clusters: readonly number[]): Partition {
  const byId = new Map<string, number>();
  const members: string[][] = [];
  index.passages.forEach((p, i) => {
    const c = clusters[i]!;
    byId.set(p.id, c);
    (members[c] ??= []).push(p.id);
  });
  return {
    clusterOf: (id) => byId.get(id),
    membersOf: (c) => members[c] ?? [],
  };
}

/** A seeded generator in [0, 1) (Park-Miller minimal standard), so Louvain's random walk is repeatable. */
function parkMiller(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}
