import { z } from 'zod';
import { TokenUsageSchema } from './usage';

export const CitationSchema = z.strictObject({
  /** The corpus passage id, or the ledger id of a web source. */
  sourceId: z.string().min(1),
  quote: z.string().max(5000).optional(),
});
export type Citation = z.infer<typeof CitationSchema>;

/** One sentence (or one table row or list item) of a paragraph, with what it cites; none for the lead's own analysis. */
export const ReportSentenceSchema = z.strictObject({
  text: z.string().min(1).max(20_000),
  citations: z.array(CitationSchema).max(20),
});
export type ReportSentence = z.infer<typeof ReportSentenceSchema>;

/**
 * A paragraph (Markdown: it may hold a table, a list or emphasis) and the sources it cites. With `sentences`, the
 * citations are attached sentence by sentence and `citations` is their union; a paragraph that cites nothing is the
 * lead's analysis of the cited paragraphs beside it, and stands only in a section that cites.
 */
export const ReportParagraphSchema = z.strictObject({
  text: z.string().min(1).max(20_000),
  citations: z.array(CitationSchema),
  sentences: z.array(ReportSentenceSchema).max(400).optional(),
});
export type ReportParagraph = z.infer<typeof ReportParagraphSchema>;

export const ReportSectionSchema = z.strictObject({
  title: z.string().min(1).max(300),
  subtopicId: z.string().optional(),
  paragraphs: z.array(ReportParagraphSchema),
});
export type ReportSection = z.infer<typeof ReportSectionSchema>;

/** The report's own headings in its language (a lead-written report); absent, the English ones. */
export const ReportHeadingsSchema = z.strictObject({ sources: z.string().min(1).max(80), coverage: z.string().min(1).max(80), gaps: z.string().min(1).max(120) });
export type ReportHeadings = z.infer<typeof ReportHeadingsSchema>;

export const CoverageStatusSchema = z.enum(['covered', 'thin', 'missing']);

/** How much evidence one subtopic has: covered, thin or missing. */
export const SubtopicCoverageSchema = z.strictObject({ id: z.string(), title: z.string(), evidenceCount: z.number().int().nonnegative(), status: CoverageStatusSchema });
export type SubtopicCoverage = z.infer<typeof SubtopicCoverageSchema>;

export const ReportCoverageSchema = z.strictObject({
  subtopics: z.array(SubtopicCoverageSchema),
  gaps: z.array(z.string()),
});
export type ReportCoverage = z.infer<typeof ReportCoverageSchema>;

export const ReportSourceSchema = z.strictObject({
  id: z.string(),
  title: z.string(),
  url: z.string().optional(),
});

export const ReportSchema = z.strictObject({
  runId: z.string(),
  title: z.string(),
  topic: z.string(),
  summary: z.string(),
  /** What the summary cites, checked against the ledger like every other citation. */
  summaryCitations: z.array(CitationSchema).optional(),
  /** The summary sentence by sentence, each with its own citations (a report written by a lead). */
  summarySentences: z.array(ReportSentenceSchema).max(100).optional(),
  /** The language the report is written in (BCP 47), its headings included. */
  language: z.string().max(35).optional(),
  headings: ReportHeadingsSchema.optional(),
  sections: z.array(ReportSectionSchema),
  sources: z.array(ReportSourceSchema),
  coverage: ReportCoverageSchema,
  metadata: z.strictObject({
    engine: z.string(),
    corpus: z.string().optional(),
    rounds: z.number().int().nonnegative(),
    tasks: z.number().int().nonnegative(),
    usage: TokenUsageSchema,
    generatedAt: z.iso.datetime(),
    /** Citations the coordinator removed because they did not check out against the ledger. */
    droppedCitations: z.number().int().nonnegative(),
  }),
});
export type Report = z.infer<typeof ReportSchema>;
