import type { IngestProgress } from '@orrery/protocol';
import type { IngestState } from './ingest-state';

/** A removal mark lapses after this if its remover died before it ended. */
const REMOVAL_MARK_MS = 10 * 60 * 1000;

/** The corpus is being ingested or removed: removing (or ingesting) it now would race those writes. */
export class CorpusBusyError extends Error {
  constructor(readonly ingest: IngestProgress) {
    super(
      ingest.status === 'removing'
        ? `corpus ${ingest.corpus} is being removed; try again once that ends`
        : `corpus ${ingest.corpus} is still ingesting (${ingest.status}, ${ingest.chunksDone} of ${ingest.chunks} chunks done); try again once it ends`,
    );
  }
}

/**
 * Removes an ingested corpus: its passages from the store and its ingest record, so it is no longer one a request may
 * name. Refused while it ingests; no ingest starts while it is removed (the claim and the check are one Redis script).
 * True when there was something to remove. REST and the CLI both remove through here.
 */
export async function removeCorpus(store: { drop(corpus: string): Promise<boolean> }, state: IngestState, corpus: string): Promise<boolean> {
  const claim = await state.beginRemoval(corpus, REMOVAL_MARK_MS);
  if ('busy' in claim) throw new CorpusBusyError(claim.busy);
  let dropped: boolean;
  try {
    dropped = await store.drop(corpus);
  } catch (err) {
    await state.endRemoval(corpus, claim.previous);
    throw err;
  }
  await state.forget(corpus);
  return dropped || claim.previous !== undefined;
}
