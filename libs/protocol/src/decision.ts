import { z } from 'zod';

export const DecisionLevelSchema = z.enum(['L0', 'L1', 'L2', 'L3']);
export type DecisionLevel = z.infer<typeof DecisionLevelSchema>;

export const SignalValueSchema = z.union([z.number(), z.string(), z.boolean(), z.null(), z.array(z.union([z.string(), z.number()]))]);

/** A structured, replayable record of one control decision. */
export const DecisionSchema = z.strictObject({
  runId: z.string(),
  ts: z.iso.datetime(),
  decisionType: z.string().min(1).max(60),
  level: DecisionLevelSchema,
  confidence: z.number().min(0).max(1),
  conclusion: z.string().max(2000),
  signals: z.record(z.string(), SignalValueSchema),
  stateVersion: z.number().int().nonnegative().optional(),
});
export type Decision = z.infer<typeof DecisionSchema>;
