import { COVERED_MIN_EVIDENCE } from './thresholds';
import type { BudgetLeft, JudgeInput, JudgeVerdict, SubtopicCoverage } from './judge-types';

export type ReviewCause = 'budget-exhausted-below-target' | 'judge-unsure';

/** The structured summary a person gets when a run pauses as `needs_review` (L3). */
export interface ReviewSummary {
  cause: ReviewCause;
  goal: string;
  round: number;
  coverage: number;
  targetCoverage: number;
  covered: Array<{ id: string; title?: string; evidenceCount: number }>;
  missing: Array<{ id: string; title?: string; evidenceCount: number; status: 'thin' | 'missing' }>;
  /** Fractions used per dimension (1 - left). */
  budgetUsed: BudgetLeft;
  pivotCount: number;
  /** The verdicts that led here (L0, then L2 if any), for context. */
  verdicts: Array<{ level: string; signal: string; confidence: number; reason: string }>;
  question: string;
  /** What the person can answer through the API. */
  options: Array<'continue' | 'stop' | 'extend-budget'>;
}

function statusOf(s: SubtopicCoverage): 'covered' | 'thin' | 'missing' {
  if (s.status) return s.status;
  if (s.evidenceCount <= 0) return 'missing';
  return s.evidenceCount >= COVERED_MIN_EVIDENCE ? 'covered' : 'thin';
}

const used = (left: number): number => Math.round((1 - Math.min(1, Math.max(0, left))) * 1000) / 1000;

export function buildReviewSummary(input: JudgeInput, cause: ReviewCause, verdicts: JudgeVerdict[]): ReviewSummary {
  const covered: ReviewSummary['covered'] = [];
  const missing: ReviewSummary['missing'] = [];
  for (const s of input.state.subtopics) {
    const st = statusOf(s);
    const entry = { id: s.id, ...(s.title !== undefined ? { title: s.title } : {}), evidenceCount: s.evidenceCount };
    if (st === 'covered') covered.push(entry);
    else missing.push({ ...entry, status: st });
  }
  const b = input.state.budgetLeft;
  const budgetUsed = { tokens: used(b.tokens), tasks: used(b.tasks), rounds: used(b.rounds), wallSeconds: used(b.wallSeconds) };
  const names = missing.map((m) => m.title ?? m.id);
  const gapText = names.length ? ` Not yet covered: ${names.slice(0, 8).join('; ')}${names.length > 8 ? ` (+${names.length - 8} more)` : ''}.` : '';
  const covPct = `${Math.round(input.state.coverage * 100)}%`;
  const tgtPct = `${Math.round(input.targetCoverage * 100)}%`;
  const question =
    cause === 'budget-exhausted-below-target'
      ? `The budget is exhausted at ${covPct} coverage (target ${tgtPct}).${gapText} Extend the budget and continue, or finish the report with these gaps listed?`
      : `The judge is unsure whether to continue after round ${input.round} (coverage ${covPct}, target ${tgtPct}).${gapText} Continue researching, or stop and write the report?`;
  return {
    cause,
    goal: input.goal,
    round: input.round,
    coverage: input.state.coverage,
    targetCoverage: input.targetCoverage,
    covered,
    missing,
    budgetUsed,
    pivotCount: input.history.pivotCount,
    verdicts: verdicts.map((v) => ({ level: v.level, signal: v.signal, confidence: v.confidence, reason: v.reason })),
    question,
    options: cause === 'budget-exhausted-below-target' ? ['extend-budget', 'stop'] : ['continue', 'stop'],
  };
}
