import { z } from 'zod';

export const BudgetSchema = z.strictObject({
  maxTokens: z.number().int().positive(),
  maxTasks: z.number().int().positive(),
  maxRounds: z.number().int().positive(),
  maxWallSeconds: z.number().int().positive(),
  /** US dollars, priced per request (tokens by model, web searches per request). Runs stored before it read as no limit. */
  maxCostUsd: z.number().positive().default(1_000_000),
});
export type Budget = z.infer<typeof BudgetSchema>;

/** A request may only lower the server's limits; the server clamps to its hard caps. */
export const BudgetRequestSchema = z.strictObject({
  maxTokens: z.number().int().positive().optional(),
  maxTasks: z.number().int().positive().optional(),
  maxRounds: z.number().int().positive().optional(),
  maxWallSeconds: z.number().int().positive().optional(),
  maxCostUsd: z.number().positive().max(1_000_000).optional(),
});
export type BudgetRequest = z.infer<typeof BudgetRequestSchema>;
