import { IngestSourceError } from '../sources/source-files';
import type { PassageStore, StoredPassage } from '../store/passage-store';
import { FingerprintTable } from './fingerprint-table';

export interface IngestPlan {
  /** Passages in the source. */
  passages: number;
  /** Of them, new or changed (queued for indexing). */
  changed: number;
  /** Passages the store held that the source no longer has (removed from it). */
  removed: number;
  chunks: number;
}

/** Ids removed from the store in one call. */
const REMOVE_BATCH = 1000;

/**
 * Compares a source with what the store holds for `corpus` and hands the new and changed passages to `emit` in chunks
 * of `chunkSize`, in source order; then removes from the store what the source no longer has. Linear in the source;
 * holds one chunk, one page of the store's hashes and fingerprints of the ids (`FingerprintTable`), so a million-passage
 * corpus plans in tens of MB.
 */
export async function planIngest(
  source: AsyncIterable<StoredPassage>,
  store: Pick<PassageStore, 'hashPages' | 'remove'>,
  corpus: string,
  chunkSize: number,
  emit: (chunk: number, passages: StoredPassage[]) => Promise<void>,
): Promise<IngestPlan> {
  const stored = new FingerprintTable(true);
  for await (const page of store.hashPages(corpus)) for (const [id, hash] of page) stored.add(id, hash);
  const seen = new FingerprintTable(false);
  let pending: StoredPassage[] = [];
  let chunks = 0;
  let changed = 0;
  let storedSeen = 0;
  for await (const p of readingSource(source)) {
    if (!seen.add(p.id)) throw new IngestSourceError(`passage ${seen.size + 1}: duplicate id (an earlier passage has it)`, `duplicate passage id ${JSON.stringify(p.id)}`);
    const same = stored.sameValue(p.id, p.contentHash);
    if (same !== undefined) storedSeen++;
    if (same) continue;
    changed++;
    pending.push(p);
    if (pending.length >= chunkSize) {
      await emit(chunks++, pending);
      pending = [];
    }
  }
  if (pending.length) await emit(chunks++, pending);
  if (seen.size === 0) throw new IngestSourceError('the source has no passages');
  // The source had every id the store held (a first ingest, or one that only adds and changes): nothing to remove.
  const removed = storedSeen === stored.size ? 0 : await removeUnseen(store, corpus, seen);
  return { passages: seen.size, changed, removed, chunks };
}

/**
 * Removes the store's passages whose ids the source did not have, reading the store's ids again a page at a time and
 * removing as it goes (a page's rows are behind the next page's start, so the pages still cover the rest).
 */
async function removeUnseen(store: Pick<PassageStore, 'hashPages' | 'remove'>, corpus: string, seen: FingerprintTable): Promise<number> {
  let removed = 0;
  for await (const page of store.hashPages(corpus)) {
    const gone = page.filter(([id]) => !seen.has(id)).map(([id]) => id);
    for (let i = 0; i < gone.length; i += REMOVE_BATCH) await store.remove(corpus, gone.slice(i, i + REMOVE_BATCH));
    removed += gone.length;
  }
  return removed;
}

/** The source's passages; what reading them throws is the source's fault (its message, which may name a path, is detail). */
async function* readingSource(source: AsyncIterable<StoredPassage>): AsyncGenerator<StoredPassage> {
  try {
    yield* source;
  } catch (err) {
    throw err instanceof IngestSourceError ? err : new IngestSourceError('the source cannot be read', (err as Error).message);
  }
}
