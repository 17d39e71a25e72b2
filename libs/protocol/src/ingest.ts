import { z } from 'zod';
import { CorpusNameSchema, IngestCorpusNameSchema } from './names';

/**
 * Where an ingest reads a corpus: a JSONL file or a folder of .md/.txt/.html files, on the planning worker's disk; every file
 * it reads must lie in one of the `within` folders once symlinks are resolved (those the request's path was checked
 * against, or the operator's own path).
 */
export const IngestSourceSchema = z.strictObject({
  kind: z.enum(['jsonl', 'folder']),
  path: z.string().min(1).max(4096),
  within: z.array(z.string().min(1).max(4096)).min(1).max(64),
  /** The path came from a request (checked against INGEST_ROOTS), not from the operator: no file with more than one hard link is read. */
  requested: z.literal(true).optional(),
});
export type IngestSource = z.infer<typeof IngestSourceSchema>;

/** A passage as a chunk job carries it to the store (the shape of the store port's StoredPassage). */
export const StoredPassageSchema = z.strictObject({
  id: z.string().min(1).max(1000),
  title: z.string(),
  url: z.string().optional(),
  text: z.string().min(1),
  document: z.string(),
  contentHash: z.string().min(1).max(128),
});

export const IngestIdSchema = z.string().regex(/^[a-z0-9-]{1,64}$/, 'ingest id must be lowercase letters, digits and dashes');
/** One run of an ingest's plan job (`<ingestId>.<n>`): a redone plan queues and counts its chunks afresh. */
export const PlanRunSchema = z.string().regex(/^[a-z0-9-]{1,64}\.[a-z0-9]{1,16}$/, 'plan run must be <ingestId>.<suffix>');

/**
 * An ingest job: `plan` reads the source, compares content hashes with the store, removes what is gone and queues
 * the changed passages as `chunk` jobs; a `chunk` writes its passages (idempotent by id, so a redone chunk is harmless);
 * `structure`, queued by whichever job completes the ingest, computes what is derived from the whole corpus and keeps
 * it in the store (its partition; seconds of work, so not inside the job that completes the ingest).
 */
export const IngestJobSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('plan'), corpus: IngestCorpusNameSchema, ingestId: IngestIdSchema, source: IngestSourceSchema }),
  z.strictObject({
    kind: z.literal('chunk'),
    corpus: IngestCorpusNameSchema,
    ingestId: IngestIdSchema,
    planRun: PlanRunSchema,
    chunk: z.number().int().nonnegative(),
    passages: z.array(StoredPassageSchema).min(1).max(10_000),
    /** The source's fingerprint when the plan read it: whichever chunk completes the ingest records it in the store. */
    fingerprint: z.string().max(100).optional(),
  }),
  z.strictObject({ kind: z.literal('structure'), corpus: IngestCorpusNameSchema, ingestId: IngestIdSchema, planRun: PlanRunSchema }),
]);
export type IngestJob = z.infer<typeof IngestJobSchema>;

/** `removing`: its passages are being deleted (`DELETE /v1/corpora/:name`, `ingest --remove`); no ingest may start meanwhile. */
export const IngestStatusSchema = z.enum(['planning', 'ingesting', 'ready', 'failed', 'removing']);
export type IngestStatus = z.infer<typeof IngestStatusSchema>;

/** The most files one ingest's progress lists as skipped (each stays in the worker's log). */
export const MAX_SKIPPED_LISTED = 100;

/** A file of a folder an ingest left out, by its path relative to the folder, and why (the rest of the folder was read). */
export const SkippedFileSchema = z.strictObject({ file: z.string().max(4096), reason: z.string().max(500) });
export type SkippedFile = z.infer<typeof SkippedFileSchema>;

/** A corpus's last ingest, as Redis keeps it and as REST answers it. */
export const IngestProgressSchema = z.strictObject({
  corpus: CorpusNameSchema,
  ingestId: IngestIdSchema,
  /** The plan run whose chunks count (absent until a worker starts planning). */
  planRun: PlanRunSchema.optional(),
  status: IngestStatusSchema,
  /** Passages in the source; of them, changed or new (re-indexed), and passages removed from the store. */
  passages: z.number().int().nonnegative(),
  changed: z.number().int().nonnegative(),
  removed: z.number().int().nonnegative(),
  chunks: z.number().int().nonnegative(),
  chunksDone: z.number().int().nonnegative(),
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime().optional(),
  error: z.string().optional(),
  /** Files of the folder left out (the first MAX_SKIPPED_LISTED), and how many in all; absent when none was. */
  skipped: z.array(SkippedFileSchema).min(1).max(MAX_SKIPPED_LISTED).optional(),
  skippedFiles: z.number().int().positive().optional(),
});
export type IngestProgress = z.infer<typeof IngestProgressSchema>;

/** `POST /v1/corpora`: (re)ingest a corpus by name, from the path `CORPORA` gives it or from `path` (admins only). */
export const CorpusIngestRequestSchema = z.strictObject({ name: IngestCorpusNameSchema, path: z.string().min(1).max(4096).optional() });
export type CorpusIngestRequest = z.infer<typeof CorpusIngestRequestSchema>;
