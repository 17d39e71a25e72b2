import { z } from 'zod';

export const RequestClassSchema = z.enum(['straightforward', 'breadth', 'depth']);
export type RequestClass = z.infer<typeof RequestClassSchema>;

/** One subtopic with a scope that must not overlap its siblings'. */
export const SubtopicSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]{1,60}$/),
  title: z.string().min(1).max(300),
  query: z.string().min(1).max(1000),
  /** Terms that define the subtopic's scope (facet keys). */
  facetTerms: z.array(z.string().max(100)).max(50),
  /** Sibling scopes this subtopic must stay out of. */
  excludeTerms: z.array(z.string().max(100)).max(200),
  origin: z.enum(['plan', 'coverage-check', 'refinement']),
  /** The brief the lead wrote for this subtopic's researcher (a Claude plan); absent, the task builder's template. */
  brief: z
    .strictObject({
      objective: z.string().min(1).max(1000),
      keyQuestions: z.array(z.string().min(1).max(300)).max(8),
      sourceTypes: z.array(z.string().min(1).max(100)).max(8),
      /** How many tool calls the lead expects the task to need (its effort). */
      toolCalls: z.number().int().min(1).max(100),
    })
    .optional(),
});
export type Subtopic = z.infer<typeof SubtopicSchema>;

export const PlanCoverageSchema = z.strictObject({
  share: z.number().min(0).max(1),
  threshold: z.number().min(0).max(1),
  maxOverlap: z.number().min(0).max(1),
  uncoveredFacets: z.array(z.string()),
  passed: z.boolean(),
});
export type PlanCoverage = z.infer<typeof PlanCoverageSchema>;

export const PlanSchema = z.strictObject({
  classification: RequestClassSchema,
  subtopics: z.array(SubtopicSchema).min(1).max(40),
  coverage: PlanCoverageSchema.optional(),
});
export type Plan = z.infer<typeof PlanSchema>;
