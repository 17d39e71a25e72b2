import { z } from 'zod';
import { SubtopicCoverageSchema } from './report';
import { RunWaitingSchema } from './provider-outage';
import { RunSchema, RunSummarySchema } from './run';
import { BillSchema } from './usage';

/** `GET /v1/research/:id/coverage`: the evidence per subtopic so far, and the share the last round measured. */
export const RunCoverageSchema = z.strictObject({
  /** Share of subtopics covered after the last completed round; null before the first one ends. */
  share: z.number().min(0).max(1).nullable(),
  target: z.number().min(0).max(1),
  subtopics: z.array(SubtopicCoverageSchema),
});
export type RunCoverage = z.infer<typeof RunCoverageSchema>;

/** `GET /v1/corpora`: the corpus names a request may use. */
export const CorpusListSchema = z.strictObject({ default: z.string(), corpora: z.array(z.string()) });
export type CorpusList = z.infer<typeof CorpusListSchema>;

/** `GET /v1/research/:id`: the run's record, with `waiting` while it waits on the model provider (its breaker is open), and its itemised bill. */
export const RunViewSchema = RunSchema.extend({ waiting: RunWaitingSchema.optional(), bill: BillSchema });
export type RunView = z.infer<typeof RunViewSchema>;

/** `GET /v1/research`: the caller's runs, and their bills summed. */
export const RunListSchema = z.strictObject({ runs: z.array(RunSummarySchema), bill: BillSchema });
export type RunList = z.infer<typeof RunListSchema>;
