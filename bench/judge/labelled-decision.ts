import { readFileSync, writeFileSync } from 'node:fs';
import { DecisionSchema, formatZodError } from '@orrery/protocol';
import { z } from 'zod';

/**
 * A decision record as runs write it (the protocol `Decision` of the round judge's L0 level), with the
 * oracle's label: would one more round have raised the report's section_recall by at least ORACLE_MIN_GAIN?
 * One JSON object per line; `npm run train:judge` reads these.
 */
export const LabelledDecisionSchema = z.strictObject({
  topic: z.string().min(1),
  decision: DecisionSchema,
  oracle: z.enum(['stop', 'continue']),
  /** section_recall after the next round minus now; null when there was no next round to run. */
  gain: z.number().nullable(),
});
export type LabelledDecision = z.infer<typeof LabelledDecisionSchema>;

export function writeLabelledDecisions(path: string, rows: readonly LabelledDecision[]): void {
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

/** Reads and validates a labelled decision log; a bad line is an error naming the line. */
export function readLabelledDecisions(path: string): LabelledDecision[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((l, i) => [l, i + 1] as const)
    .filter(([l]) => l.trim())
    .map(([l, n]) => {
      const r = LabelledDecisionSchema.safeParse(JSON.parse(l));
      if (!r.success) throw new Error(`${path}:${n}: not a labelled decision: ${formatZodError(r.error)}`);
      return r.data;
    });
}
