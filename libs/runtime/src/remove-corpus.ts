import type { IngestProgress } from '@orrery/protocol';
import type { IngestState } from './ingest-state';

/** The corpus is being ingested: removing it now would race the ingest's writes. */
export class CorpusBusyError extends Error {
  constructor(readonly ingest: IngestProgress) {
    super(`corpus ${ingest.corpus} is still ingesting (${ingest.status}, ${ingest.chunksDone} of ${ingest.chunks} chunks done); remove it once that ends`);
  }
}

/**
 * Removes an ingested corpus: its passages from the store and its ingest record, so it is no longer one a request may
 * name. Refused while it ingests. True when there was something to remove. REST and the CLI both remove through here.
 */
export async function removeCorpus(store: { drop(corpus: string): Promise<boolean> }, state: IngestState, corpus: string): Promise<boolean> {
  const current = await state.get(corpus);
  if (current && (current.status === 'planning' || current.status === 'ingesting')) throw new CorpusBusyError(current);
  const dropped = await store.drop(corpus);
  const forgotten = await state.forget(corpus);
  return dropped || forgotten;
}
