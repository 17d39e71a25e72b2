import { z } from 'zod';

/**
 * Model-facing shapes for structured output. Protocol types carry ids, origins and computed fields the model must
 * not invent; the engines map these drafts onto them. Limits the JSON schema cannot express are enforced by zod here.
 */
const SubtopicDraftSchema = z.object({
  title: z.string().min(1).max(300),
  query: z.string().min(1).max(1000),
  facetTerms: z.array(z.string().min(1).max(100)).min(1).max(20),
  excludeTerms: z.array(z.string().min(1).max(100)).max(50),
});
export type SubtopicDraft = z.infer<typeof SubtopicDraftSchema>;

export const PlanDraftSchema = z.object({
  classification: z.enum(['straightforward', 'breadth', 'depth']),
  subtopics: z.array(SubtopicDraftSchema).min(1).max(40),
  confidence: z.number().min(0).max(1),
  rationale: z.string().max(2000),
});
export type PlanDraft = z.infer<typeof PlanDraftSchema>;

export const CoverageCritiqueSchema = z.object({
  facets: z
    .array(z.object({ name: z.string().min(1).max(200), coveredBy: z.array(z.string().max(100)).max(40) }))
    .min(1)
    .max(60),
  overlaps: z.array(z.object({ first: z.string().max(100), second: z.string().max(100), share: z.number().min(0).max(1) })).max(100),
  missing: z.array(SubtopicDraftSchema).max(20),
  confidence: z.number().min(0).max(1),
  reason: z.string().max(2000),
});
export type CoverageCritique = z.infer<typeof CoverageCritiqueSchema>;

export const RefinementDraftSchema = z.object({
  newSubtopics: z.array(SubtopicDraftSchema).max(20),
  thinSubtopicIds: z.array(z.string().max(100)).max(40),
  confidence: z.number().min(0).max(1),
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
