import type { PassageStore } from '@orrery/passages';
import type { CorpusIndex } from '../index/corpus-index';
import { partitionName, seedClusters, type PartitionOptions } from './corpus-partition';
import { preparePartition } from './prepare-profile';
import { DEFAULT_TOPIC_PROFILE } from './topic-profile';

/** The partition a topic profile uses with the default options: what a store keeps for a corpus read whole. */
export const KEPT_PARTITION: PartitionOptions = { neighbors: DEFAULT_TOPIC_PROFILE.graphNeighbors, resolution: DEFAULT_TOPIC_PROFILE.partition.resolution };

/**
 * Gives a whole-corpus index, read from the store at `generation`, the structure the store keeps for that generation.
 * When it keeps none (the corpus was ingested by an older version, or its ingest stopped first), the structure is
 * computed off the event loop and kept, so no other process computes it again.
 */
export async function withCorpusStructure(store: PassageStore, corpus: string, generation: number, index: CorpusIndex): Promise<void> {
  const name = partitionName(KEPT_PARTITION);
  const kept = (await store.structure(corpus, generation))?.partitions[name];
  if (kept && Object.keys(kept).length === index.size && seedClusters(index, name, index.passages.map((p) => kept[p.id] ?? -1))) return;
  const clusters = await preparePartition(index, KEPT_PARTITION);
  await store.keepStructure(corpus, generation, { partitions: { [name]: Object.fromEntries(index.passages.map((p, i) => [p.id, clusters[i]!])) } });
}
