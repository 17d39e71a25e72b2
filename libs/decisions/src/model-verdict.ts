import { z } from 'zod';

/**
 * The one contract for every judge model's answer (the round judge's L2, the loop judge, the MCP judge): anything
 * that does not parse is no answer and counts as a failed call. It is also the Claude engine's structured-output
 * schema, so the model is asked for exactly what is checked. Structured outputs cannot enforce numeric bounds, so a
 * confidence out of [0, 1] is clamped, not refused.
 */
export const ModelVerdictSchema = z.object({
  signal: z.enum(['continue', 'stop', 'pivot']),
  confidence: z.preprocess((v) => (typeof v === 'number' && Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : v), z.number().min(0).max(1)),
  reason: z.string().min(1).max(1000),
});
export type ModelVerdict = z.infer<typeof ModelVerdictSchema>;
