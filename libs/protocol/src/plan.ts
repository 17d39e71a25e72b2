import { z } from 'zod';

export const RequestClassSchema = z.enum(['straightforward', 'breadth', 'depth']);
export type RequestClass = z.infer<typeof RequestClassSchema>;

/**
 * The shape of report a question asks for, read from its words: a comparison of sides, a change over time, what
 * documents say, or a survey. The plan carries it so every process reads the same shape.
 */
export const ReportShapeSchema = z.strictObject({
  kind: z.enum(['comparative', 'change', 'documents', 'survey']),
  /** What is compared, as the question writes it; empty unless comparative. */
  sides: z.array(z.string().max(4000)).max(100),
  /** What the question is about; the whole topic when no frame is recognized. */
  subject: z.string().max(4000),
});
export type ReportShape = z.infer<typeof ReportShapeSchema>;
export type ReportShapeKind = ReportShape['kind'];

/** The side of a comparison a subtopic gathers evidence for, as the corpus knows it: some of its authors, or words. */
export const SubtopicSideSchema = z.strictObject({
  /** As the question writes it ("FDR"). */
  label: z.string().max(4000),
  /** How a report names it ("Franklin D. Roosevelt"). */
  name: z.string().max(4000),
  /** The corpus's authors it names, or null for a side of words. */
  authors: z.array(z.string().max(1000)).max(1000).nullable(),
  /** Its index terms (a side of words). */
  terms: z.array(z.string().max(200)).max(1000),
});
export type SubtopicSide = z.infer<typeof SubtopicSideSchema>;

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
  /** The comparison's side this subtopic researches (a comparative plan); absent otherwise, and in older plans. */
  side: SubtopicSideSchema.optional(),
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

/** How the answer is laid out: the lead decides it from what the question asks. */
export const AnswerFormSchema = z.enum(['direct-answer', 'comparison-table', 'chronology', 'analysis']);
export type AnswerForm = z.infer<typeof AnswerFormSchema>;

/** A person's feedback on a proposed plan, in words ("leave out the 1800s; add tariffs"). */
export const PlanFeedbackSchema = z
  .string({ message: 'feedback is required and must be a string' })
  .trim()
  .min(2, 'feedback must have at least 2 characters')
  .max(2000, 'feedback must have at most 2000 characters');

/** Years a search leaves out, both ends included (a person's "leave out the 1800s" is 1800–1899). */
export const YearWindowSchema = z.strictObject({ from: z.number().int().min(-9999).max(9999), to: z.number().int().min(-9999).max(9999) }).refine((w) => w.from <= w.to, 'a year window runs from its first year to its last');
export type YearWindow = z.infer<typeof YearWindowSchema>;

/** Authors whose documents alone a run searches: the ones the question names as speaking ("What did Lincoln say…"). */
export const AuthorsSchema = z.array(z.string().min(1).max(200)).min(1).max(20);

export const PlanSchema = z.strictObject({
  classification: RequestClassSchema,
  /** The question's shape as the planner read it (absent in older plans and in a lead's own plans). */
  shape: ReportShapeSchema.optional(),
  subtopics: z.array(SubtopicSchema).min(1).max(40),
  /** The lead's reasoning about the question (a Claude plan): what it asks and why the plan covers it so. */
  rationale: z.string().max(2000).optional(),
  /** The form the lead chose for the report. */
  answerForm: AnswerFormSchema.optional(),
  /** The question's language (BCP 47, e.g. "fr"), which the report and its headings are written in. */
  language: z.string().min(2).max(35).optional(),
  coverage: PlanCoverageSchema.optional(),
  /** Years every search of the run leaves out, from a person's feedback on the plan (dated corpora only). */
  excludeYears: z.array(YearWindowSchema).max(20).optional(),
  /** Authors whose documents alone every search of the run reads, as the question names them (authored corpora only). */
  authors: AuthorsSchema.optional(),
});
export type Plan = z.infer<typeof PlanSchema>;
