import type { Finding, Plan } from '@orrery/protocol';

export interface RoundFigures {
  /** Ledger findings per subtopic id. */
  evidence: Record<string, number>;
  /** Share of the plan's subtopics with at least `minEvidence` findings. */
  coverage: number;
  /** New findings / findings returned this round (0 when nothing came back). */
  novelty: number;
  thinSubtopicIds: string[];
}

export const MIN_EVIDENCE_PER_SUBTOPIC = 2;

/** Ledger findings per subtopic id, every planned subtopic included. */
export function evidenceOf(plan: Plan | undefined, ledgerFindings: Finding[]): Record<string, number> {
  const evidence: Record<string, number> = Object.fromEntries((plan?.subtopics ?? []).map((s) => [s.id, 0]));
  for (const f of ledgerFindings) evidence[f.subtopicId] = (evidence[f.subtopicId] ?? 0) + 1;
  return evidence;
}

export function roundFigures(plan: Plan, ledgerFindings: Finding[], returned: number, newFindings: number): RoundFigures {
  const evidence = evidenceOf(plan, ledgerFindings);
  const thinSubtopicIds = plan.subtopics.filter((s) => (evidence[s.id] ?? 0) < MIN_EVIDENCE_PER_SUBTOPIC).map((s) => s.id);
  const coverage = plan.subtopics.length ? 1 - thinSubtopicIds.length / plan.subtopics.length : 0;
  const novelty = returned > 0 ? newFindings / returned : 0;
  return { evidence, coverage, novelty, thinSubtopicIds };
}
