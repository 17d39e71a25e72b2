import { z } from 'zod';

export const BudgetSchema = z.strictObject({
  maxTokens: z.number().int().positive(),
  maxTasks: z.number().int().positive(),
  maxRounds: z.number().int().positive(),
  maxWallSeconds: z.number().int().positive(),
});
export type Budget = z.infer<typeof BudgetSchema>;

/** A request may only lower the server's limits; the server clamps to its hard caps. */
export const BudgetRequestSchema = BudgetSchema.partial();
export type BudgetRequest = z.infer<typeof BudgetRequestSchema>;
