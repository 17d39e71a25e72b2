import type { Plan, SubtopicCoverage } from '@orrery/protocol';
import { MIN_EVIDENCE_PER_SUBTOPIC } from './round-figures';

/** Each subtopic of the plan: covered with enough findings, thin with some, missing with none. */
export function subtopicCoverage(plan: Plan | undefined, evidence: Record<string, number>): SubtopicCoverage[] {
  return (plan?.subtopics ?? []).map((s) => {
    const evidenceCount = evidence[s.id] ?? 0;
    const status = evidenceCount >= MIN_EVIDENCE_PER_SUBTOPIC ? 'covered' : evidenceCount > 0 ? 'thin' : 'missing';
    return { id: s.id, title: s.title, evidenceCount, status };
  });
}
