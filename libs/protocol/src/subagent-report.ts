import { z } from 'zod';

/** A researcher's condensed account of its task, beside its findings: what it found, what it could not, where sources disagree. */
export const SubagentReportSchema = z.strictObject({
  text: z.string().max(8000),
  gaps: z.array(z.string().max(300)).max(20),
  conflicts: z.array(z.string().max(500)).max(20),
});
export type SubagentReport = z.infer<typeof SubagentReportSchema>;
