import { INGEST_QUEUE, IngestCorpusNameSchema, type IngestJob, type IngestSource } from '@orrery/protocol';
import type { Queue } from 'bullmq';
import { randomBytes } from 'node:crypto';
import type { IngestState } from './ingest-state';
import { CorpusBusyError } from './remove-corpus';

/** A planning mark whose plan job was never queued (the caller died in between) lapses after this. */
const PLANNING_MARK_MS = 10 * 60 * 1000;

/** Job ids of an ingest: one plan per ingest; chunks (and the structure) per plan run, so a redone plan's never meet a dead run's. */
export const ingestJobIds = {
  plan: (corpus: string, ingestId: string) => `plan.${corpus}.${ingestId}`,
  chunk: (corpus: string, planRun: string, chunk: number) => `chunk.${corpus}.${planRun}.${chunk}`,
  structure: (corpus: string, planRun: string) => `structure.${corpus}.${planRun}`,
};

/** A corpus whose name differs from the one asked only in letter case exists: names are unique whatever their case. */
export class CorpusNameTakenError extends Error {
  constructor(
    readonly corpus: string,
    readonly existing: string,
  ) {
    super(`corpus name "${corpus}" is taken by the corpus "${existing}": corpus names are unique whatever their letter case; ingest into "${existing}" or choose another name`);
  }
}

/**
 * Starts an ingest of `corpus` from `source`: marks the corpus as planning (questions on it get 409 from now) and
 * queues the plan job, which a worker runs. Returns the ingest's id. `CorpusBusyError` while another ingest of it, or
 * its removal, is under way; `CorpusNameTakenError` when one of the `known` corpora (configured, or with passages in the
 * store) has the same name in another letter case, so that `Docs` and `docs` never become two corpora.
 */
export async function startIngest(queue: Queue, state: IngestState, corpus: string, source: IngestSource, attempts: number, known: readonly string[] = []): Promise<string> {
  if (queue.name !== INGEST_QUEUE) throw new Error(`startIngest needs the ${INGEST_QUEUE} queue, not ${queue.name}`);
  const name = IngestCorpusNameSchema.safeParse(corpus);
  if (!name.success) throw new Error(name.error.issues.map((i) => i.message).join('; '));
  const twin = known.find((k) => k !== corpus && k.toLowerCase() === corpus.toLowerCase());
  if (twin) throw new CorpusNameTakenError(corpus, twin);
  const ingestId = `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  const busy = await state.begin(corpus, ingestId, PLANNING_MARK_MS);
  if (busy) throw new CorpusBusyError(busy);
  const job: IngestJob = { kind: 'plan', corpus, ingestId, source };
  await queue.add('plan', job, { jobId: ingestJobIds.plan(corpus, ingestId), attempts, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: { count: 1000 }, removeOnFail: { count: 1000 } });
  return ingestId;
}
