import { z } from 'zod';

/** Why a finding was judged on-topic: kept with the finding so reviewers can audit the precision guard. */
export const RelevanceEvidenceSchema = z.strictObject({
  score: z.number(),
  topicTerms: z.array(z.string()),
  facetTerms: z.array(z.string()),
});
export type RelevanceEvidence = z.infer<typeof RelevanceEvidenceSchema>;

/** A claim backed by a verbatim quote from one retrieved source. */
export const FindingSchema = z.strictObject({
  id: z.string().min(1).max(300),
  claim: z.string().min(1).max(5000),
  sourceId: z.string().min(1).max(300),
  quote: z.string().min(1).max(5000),
  subtopicId: z.string().max(100),
  relevance: RelevanceEvidenceSchema.optional(),
});
export type Finding = z.infer<typeof FindingSchema>;
