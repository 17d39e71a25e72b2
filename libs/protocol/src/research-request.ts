import { z } from 'zod';
import { BudgetRequestSchema } from './budget';
import { CorpusNameSchema, EngineNameSchema } from './names';

export const TOPIC_MAX_CHARS = 2000;

export const ResearchRequestSchema = z.strictObject({
  topic: z
    .string({ message: 'topic is required and must be a string' })
    .trim()
    .min(3, 'topic must have at least 3 characters')
    .max(TOPIC_MAX_CHARS, `topic must have at most ${TOPIC_MAX_CHARS} characters`),
  engine: EngineNameSchema.optional(),
  corpus: CorpusNameSchema.optional(),
  budget: BudgetRequestSchema.optional(),
  /** Ablation switch used by the coverage benchmark; on by default. */
  coverageCheck: z.boolean().optional(),
});
export type ResearchRequest = z.infer<typeof ResearchRequestSchema>;
