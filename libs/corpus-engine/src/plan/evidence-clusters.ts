import type { CorpusIndex } from '../index/corpus-index';

/**
 * Passages of a topic's scouting evidence whose TF-IDF cosine reaches this are linked; a cluster is what the
 * links join (single link). 0.35 is where a topic's passages mostly fall into groups of a few, one per thing the
 * topic talks about, rather than one chain (lower) or singletons (higher). Of 0.10-0.35 in steps of 0.05 it
 * separated best, on the FreshWiki dev topics, the rounds after which one more adds a section (docs/benchmarks.md).
 */
export const EVIDENCE_LINK_COSINE = 0.35;

/** The scouting evidence the ledger misses, counted two ways: as passages, and as clusters of similar passages (a stand-in for a topic's sections). */
export interface EvidenceGap {
  /** Evidence passages the ledger does not hold. */
  missingPassages: number;
  clusters: number;
  /** Clusters none of whose passages the ledger holds. */
  untouchedClusters: number;
}

/** Clusters the evidence by single link at `link` cosine and counts what the ledger has not touched. Quadratic in the evidence (a few dozen passages). */
export function evidenceGap(index: CorpusIndex, evidence: readonly string[], ledger: ReadonlySet<string>, link = EVIDENCE_LINK_COSINE): EvidenceGap {
  const parent = evidence.map((_, i) => i);
  const root = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
    return i;
  };
  for (let i = 0; i < evidence.length; i++)
    for (let j = i + 1; j < evidence.length; j++) if (index.similarity(evidence[i]!, evidence[j]!) >= link) parent[root(i)] = root(j);
  const touched = new Set<number>();
  const all = new Set<number>();
  evidence.forEach((id, i) => {
    all.add(root(i));
    if (ledger.has(id)) touched.add(root(i));
  });
  return { missingPassages: evidence.filter((id) => !ledger.has(id)).length, clusters: all.size, untouchedClusters: all.size - touched.size };
}
