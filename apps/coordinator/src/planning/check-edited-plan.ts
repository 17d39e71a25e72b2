import { DEFAULT_COVERAGE_CHECK, jaccard } from '@orrery/corpus-engine';
import { type TaskEstimate } from '@orrery/engine';
import type { Plan } from '@orrery/protocol';
import { reserve } from '../budget';
import type { BudgetAccount } from '../budget/budget-account';
import { effortFor } from '../effort';

export interface PlanLimits {
  /** MAX_SUBTOPICS: round 1 dispatches one task per subtopic, at most this many. */
  maxSubtopics: number;
  account: BudgetAccount;
  perTask: TaskEstimate;
  nowMs: number;
}

const norm = (t: string) => t.trim().toLowerCase();

/**
 * What is wrong with a plan a person approves or edits before dispatch (empty: nothing). Scopes must stay apart
 * by the rule the planner's coverage check holds its own plans to (scope terms shared by two subtopics at most
 * DEFAULT_COVERAGE_CHECK.maxOverlap, Jaccard; no query twice; no subtopic excluding its own terms), and round 1
 * must fit whole: as many subtopics as the class's effort dispatches, and the budget's tasks, tokens and dollars.
 */
export function checkEditedPlan(plan: Plan, limits: PlanLimits): string[] {
  const problems: string[] = [];
  const { subtopics } = plan;
  const ids = subtopics.map((s) => s.id);
  const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
  if (twice.length) problems.push(`subtopic ids must be unique: ${[...new Set(twice)].join(', ')} appear more than once`);
  if (plan.classification === 'straightforward' && subtopics.length !== 1) problems.push('a straightforward plan has exactly one subtopic');
  const most = Math.min(effortFor(plan.classification).maxSubagentsPerRound, limits.maxSubtopics);
  if (subtopics.length > most) problems.push(`a ${plan.classification} plan dispatches at most ${most} subtopics; this one has ${subtopics.length}`);

  // A blank term says nothing about a scope: left in, it would make any two scopes look apart.
  for (const s of subtopics) {
    const blank = [['facetTerms', s.facetTerms], ['excludeTerms', s.excludeTerms]].filter(([, terms]) => (terms as string[]).some((t) => norm(t) === '')).map(([field]) => field);
    if (blank.length) problems.push(`subtopic ${s.id} has a blank term in ${blank.join(' and ')}: scope terms must be words`);
  }
  const scopes = subtopics.map((s) => new Set(s.facetTerms.map(norm).filter(Boolean)));
  subtopics.forEach((s, i) => {
    const own = s.excludeTerms.map(norm).filter((t) => scopes[i]!.has(t));
    if (own.length) problems.push(`subtopic ${s.id} excludes its own scope terms: ${own.join(', ')}`);
  });
  const max = DEFAULT_COVERAGE_CHECK.maxOverlap;
  for (let i = 0; i < subtopics.length; i++)
    for (let j = i + 1; j < subtopics.length; j++) {
      const [a, b] = [subtopics[i]!, subtopics[j]!];
      const shared = jaccard(scopes[i]!, scopes[j]!);
      if (shared > max) problems.push(`subtopics ${a.id} and ${b.id} overlap: ${Math.round(shared * 100)}% of their scope terms are shared (at most ${Math.round(max * 100)}%)`);
      else if (norm(a.query) === norm(b.query)) problems.push(`subtopics ${a.id} and ${b.id} overlap: they have the same query`);
    }

  const n = Math.min(subtopics.length, most);
  const fit = reserve(limits.account, { id: 'plan-review-check', tasks: n, tokens: limits.perTask.tokens * n, costUsd: limits.perTask.costUsd * n }, { mode: 'refuse', nowMs: limits.nowMs });
  if (!fit.ok) problems.push(`the plan does not fit the budget: round 1 ${fit.reason}`);
  return problems;
}
