import { z } from 'zod';

/**
 * Model-facing shapes for structured output. Protocol types carry ids, origins and computed fields the model must
 * not invent; the engines map these drafts onto them. Limits the JSON schema cannot express are enforced by zod here.
 */

/**
 * A share or confidence in [0, 1]. Structured outputs do not enforce numeric bounds: the SDK's zodOutputFormat sends
 * `minimum`/`maximum` only inside the property's description (lib/transform-json-schema.js, which moves keywords
 * strict mode does not support there), so the model can return 1.2. Such a number is clamped, not refused: refusing it twice threw away
 * valid plans.
 */
const unit = z.preprocess((v) => (typeof v === 'number' && Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : v), z.number().min(0).max(1));
/** A tool-call count: at least one, at most what one task may make; out of range is clamped like `unit`. */
const toolCalls = z.preprocess((v) => (typeof v === 'number' && Number.isFinite(v) ? Math.min(40, Math.max(1, Math.round(v))) : v), z.number().int().min(1).max(40));

const SubtopicDraftSchema = z.object({
  title: z.string().min(1).max(300),
  query: z.string().min(1).max(1000),
  facetTerms: z.array(z.string().min(1).max(100)).min(1).max(20),
  excludeTerms: z.array(z.string().min(1).max(100)).max(50),
  /** The researcher's brief, written by the lead: what to find, the questions to answer, where to look, how much effort. */
  objective: z.string().min(1).max(1000).optional(),
  keyQuestions: z.array(z.string().min(1).max(300)).max(8).optional(),
  sourceTypes: z.array(z.string().min(1).max(100)).max(8).optional(),
  toolCalls: toolCalls.optional(),
});
export type SubtopicDraft = z.infer<typeof SubtopicDraftSchema>;

export const PlanDraftSchema = z.object({
  classification: z.enum(['straightforward', 'breadth', 'depth']),
  subtopics: z.array(SubtopicDraftSchema).min(1).max(40),
  confidence: unit,
  rationale: z.string().max(2000),
  /** The form the answer needs; absent, the rules' advice stands. */
  answerForm: z.enum(['direct-answer', 'comparison-table', 'chronology', 'analysis']).optional(),
  /** The question's language, BCP 47. */
  language: z.string().min(2).max(35).optional(),
});
export type PlanDraft = z.infer<typeof PlanDraftSchema>;

export const CoverageCritiqueSchema = z.object({
  facets: z
    .array(z.object({ name: z.string().min(1).max(200), coveredBy: z.array(z.string().max(100)).max(40) }))
    .min(1)
    .max(60),
  overlaps: z.array(z.object({ first: z.string().max(100), second: z.string().max(100), share: unit })).max(100),
  missing: z.array(SubtopicDraftSchema).max(20),
  confidence: unit,
  reason: z.string().max(2000),
});
export type CoverageCritique = z.infer<typeof CoverageCritiqueSchema>;

export const RefinementDraftSchema = z.object({
  newSubtopics: z.array(SubtopicDraftSchema).max(20),
  thinSubtopicIds: z.array(z.string().max(100)).max(40),
  confidence: unit,
  reason: z.string().max(2000),
});
export type RefinementDraft = z.infer<typeof RefinementDraftSchema>;

export const FindingsDraftSchema = z.object({
  findings: z
    .array(
      z.object({
        claim: z.string().min(1).max(5000),
        sourceId: z.string().min(1).max(300),
        quote: z.string().min(1).max(5000),
      }),
    )
    .max(100),
  /** What the task's sources do not answer, and where they disagree: the condensed report's two other halves. */
  gaps: z.array(z.string().min(1).max(300)).max(20).optional(),
  conflicts: z.array(z.string().min(1).max(500)).max(20).optional(),
});
export type FindingsDraft = z.infer<typeof FindingsDraftSchema>;

export const ReportDraftSchema = z.object({
  title: z.string().min(1).max(300),
  summary: z.string().max(20_000),
  sections: z
    .array(
      z.object({
        title: z.string().min(1).max(300),
        /** The input section's subtopic id, or '' for a section of the writer's own. */
        subtopicId: z.string().max(100),
        paragraphs: z
          .array(z.object({ text: z.string().min(1).max(20_000), findingIds: z.array(z.string().min(1).max(300)).min(1).max(50) }))
          .min(1)
          .max(40),
      }),
    )
    .min(1)
    .max(60),
});
export type ReportDraft = z.infer<typeof ReportDraftSchema>;

/** The lead's report: Markdown prose with no citation marks (they are attached afterwards, sentence by sentence). */
export const LeadReportDraftSchema = z.object({
  title: z.string().min(1).max(300),
  /** Opens with the answer for a direct question. */
  summary: z.string().min(1).max(8000),
  sections: z
    .array(
      z.object({
        title: z.string().min(1).max(300),
        /** The plan's subtopic id the section reports on, or '' for a section of the lead's own. */
        subtopicId: z.string().max(100),
        paragraphs: z.array(z.string().min(1).max(20_000)).min(1).max(40),
      }),
    )
    .min(1)
    .max(60),
  /** The report's own headings, in its language (absent: the English ones). */
  headings: z.object({ sources: z.string().min(1).max(80), coverage: z.string().min(1).max(80), gaps: z.string().min(1).max(120) }).optional(),
});
export type LeadReportDraft = z.infer<typeof LeadReportDraftSchema>;

/** The citer's answer: for each sentence it cites, the findings that support it. */
export const SentenceCitationsDraftSchema = z.object({
  citations: z.array(z.object({ sentence: z.number().int().min(1), findingIds: z.array(z.string().min(1).max(300)).min(1).max(5) })).max(2000),
});
export type SentenceCitationsDraft = z.infer<typeof SentenceCitationsDraftSchema>;
