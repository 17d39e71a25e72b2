import type { Plan, Subtopic } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import { openBudgetAccount } from '../budget';
import { checkEditedPlan } from './check-edited-plan';

const T0 = 1_000_000;
const limits = {
  maxSubtopics: 8,
  account: openBudgetAccount({ maxTokens: 1_000_000, maxTasks: 40, maxRounds: 3, maxWallSeconds: 900, maxCostUsd: 25 }, T0),
  perTask: { tokens: 1000, costUsd: 0 },
  nowMs: T0,
};
const subtopic = (id: string, facetTerms: string[], excludeTerms: string[] = []): Subtopic => ({ id, title: id, query: `about ${id}`, facetTerms, excludeTerms, origin: 'plan' });
const plan = (...subtopics: Subtopic[]): Plan => ({ classification: 'breadth', subtopics });

describe('checkEditedPlan', () => {
  it('takes scopes that stay apart, and an overview with no scope terms', () => {
    expect(checkEditedPlan(plan(subtopic('overview', []), subtopic('dams', ['dam', 'weir']), subtopic('salmon', ['salmon', 'run'])), limits)).toEqual([]);
  });
  it('refuses scopes made of empty or blank strings, which would pass the overlap rule', () => {
    const problems = checkEditedPlan(plan(subtopic('a', ['', '  ']), subtopic('b', ['']), subtopic('c', ['salmon'], [' '])), limits);
    expect(problems).toEqual([
      'subtopic a has a blank term in facetTerms: scope terms must be words',
      'subtopic b has a blank term in facetTerms: scope terms must be words',
      'subtopic c has a blank term in excludeTerms: scope terms must be words',
    ]);
  });
  it('still refuses overlapping scopes', () => {
    expect(checkEditedPlan(plan(subtopic('a', ['dam', 'weir']), subtopic('b', ['Dam', 'weir '])), limits)).toEqual(['subtopics a and b overlap: 100% of their scope terms are shared (at most 50%)']);
  });
});
