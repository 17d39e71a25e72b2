import { IngestSourceError } from '../corpus/source-files';
import type { StoredPassage } from '../store/passage-store';

export interface IngestPlan {
  /** Passages in the source. */
  passages: number;
  /** Of them, new or changed (queued for indexing). */
  changed: number;
  /** Ids in the store that the source no longer has. */
  removed: string[];
  chunks: number;
}

/**
 * Compares a source with what the store holds (`stored`: id → content hash) and hands the new and changed passages
 * to `emit` in chunks of `chunkSize`, in source order; what the source no longer has is returned as `removed`.
 * Linear in the source; holds one chunk and the set of ids seen.
 */
export async function planIngest(
  source: AsyncIterable<StoredPassage>,
  stored: ReadonlyMap<string, string>,
  chunkSize: number,
  emit: (chunk: number, passages: StoredPassage[]) => Promise<void>,
): Promise<IngestPlan> {
  const seen = new Set<string>();
  let pending: StoredPassage[] = [];
  let chunks = 0;
  let changed = 0;
  for await (const p of readingSource(source)) {
    if (seen.has(p.id)) throw new IngestSourceError(`passage ${seen.size + 1}: duplicate id (an earlier passage has it)`, `duplicate passage id ${JSON.stringify(p.id)}`);
    seen.add(p.id);
    if (stored.get(p.id) === p.contentHash) continue;
    changed++;
    pending.push(p);
    if (pending.length >= chunkSize) {
      await emit(chunks++, pending);
      pending = [];
    }
  }
  if (pending.length) await emit(chunks++, pending);
  if (seen.size === 0) throw new IngestSourceError('the source has no passages');
  const removed = [...stored.keys()].filter((id) => !seen.has(id));
  return { passages: seen.size, changed, removed, chunks };
}

/** The source's passages; what reading them throws is the source's fault (its message, which may name a path, is detail). */
async function* readingSource(source: AsyncIterable<StoredPassage>): AsyncGenerator<StoredPassage> {
  try {
    yield* source;
  } catch (err) {
    throw err instanceof IngestSourceError ? err : new IngestSourceError('the source cannot be read', (err as Error).message);
  }
}
