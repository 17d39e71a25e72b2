import type { Finding, Plan } from '@orrery/protocol';

/** A subtopic's task brought this finding (the ledger may keep it under another subtopic). */
export interface BroughtFinding {
  subtopicId: string;
  findingId: string;
}

export interface RoundFigures {
  /** Findings per subtopic id: those its tasks brought. */
  evidence: Record<string, number>;
  /** Share of the plan's subtopics with at least `minEvidence` findings. */
  coverage: number;
  /** New findings / findings returned this round (0 when nothing came back). */
  novelty: number;
  thinSubtopicIds: string[];
}

export const MIN_EVIDENCE_PER_SUBTOPIC = 2;

/**
 * Findings per subtopic id, every planned subtopic included: each distinct finding a subtopic's tasks brought,
 * so a subtopic whose findings all duplicate another's is still covered by them. A finding's own subtopic counts
 * too (a ledger written before `brought` was recorded has only that).
 */
export function evidenceOf(plan: Plan | undefined, ledgerFindings: Finding[], brought: readonly BroughtFinding[]): Record<string, number> {
  const evidence: Record<string, number> = Object.fromEntries((plan?.subtopics ?? []).map((s) => [s.id, 0]));
  const counted = new Set<string>();
  const count = (subtopicId: string, findingId: string) => {
    const key = `${subtopicId} ${findingId}`;
    if (counted.has(key)) return;
    counted.add(key);
    evidence[subtopicId] = (evidence[subtopicId] ?? 0) + 1;
  };
  for (const f of ledgerFindings) count(f.subtopicId, f.id);
  for (const b of brought) count(b.subtopicId, b.findingId);
  return evidence;
}

export function roundFigures(plan: Plan, ledgerFindings: Finding[], brought: readonly BroughtFinding[], returned: number, newFindings: number): RoundFigures {
  const evidence = evidenceOf(plan, ledgerFindings, brought);
  const thinSubtopicIds = plan.subtopics.filter((s) => (evidence[s.id] ?? 0) < MIN_EVIDENCE_PER_SUBTOPIC).map((s) => s.id);
  const coverage = plan.subtopics.length ? 1 - thinSubtopicIds.length / plan.subtopics.length : 0;
  const novelty = returned > 0 ? newFindings / returned : 0;
  return { evidence, coverage, novelty, thinSubtopicIds };
}
