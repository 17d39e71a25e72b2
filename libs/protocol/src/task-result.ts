import { z } from 'zod';
import { FindingSchema } from './finding';
import { CitationSchema, ReportHeadingsSchema, ReportSectionSchema, ReportSentenceSchema } from './report';
import { SourceSchema } from './source';
import { SubagentReportSchema } from './subagent-report';
import { TaskProgressSchema } from './task';
import { TokenUsageSchema } from './usage';

const ResultBaseSchema = z.strictObject({
  taskId: z.string(),
  usage: TokenUsageSchema,
  /** Free-form, numeric-only counters (tool calls, idle stops...). */
  stats: z.record(z.string(), z.number()),
  /**
   * The decisions the task reported through progress, again: progress is live but best effort (a coordinator
   * that is down misses it), the result is not, so the decision log gets them either way (keyed, so once).
   */
  decisions: z.array(TaskProgressSchema).max(50).optional(),
});

export const SearchResultSchema = ResultBaseSchema.extend({
  kind: z.literal('search'),
  findings: z.array(FindingSchema).max(200),
  sources: z.array(SourceSchema).max(500),
  report: SubagentReportSchema.optional(),
});
export type SearchResult = z.infer<typeof SearchResultSchema>;

export const SynthesizeResultSchema = ResultBaseSchema.extend({
  kind: z.literal('synthesize'),
  title: z.string().min(1).max(300),
  summary: z.string().max(20_000),
  /** The sources the summary's claims rest on (the passage that shows a direct answer). */
  summaryCitations: z.array(CitationSchema).max(50).optional(),
  summarySentences: z.array(ReportSentenceSchema).max(100).optional(),
  /** The language the lead wrote in (BCP 47). */
  language: z.string().max(35).optional(),
  headings: ReportHeadingsSchema.optional(),
  sections: z.array(ReportSectionSchema).max(60),
  /** The writer found the sources do not answer the question and says so: a report without a paragraph is then the answer, not a failed draft. */
  unanswered: z.literal(true).optional(),
});
export type SynthesizeResult = z.infer<typeof SynthesizeResultSchema>;

export const TaskResultSchema = z.discriminatedUnion('kind', [SearchResultSchema, SynthesizeResultSchema]);
export type TaskResult = z.infer<typeof TaskResultSchema>;
