import type { Plan } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import { planText } from './plan-text';

describe('planText', () => {
  const plan: Plan = { classification: 'breadth', subtopics: [{ id: 'overview', title: 'Overview', query: 'taxes', facetTerms: [], excludeTerms: [], origin: 'plan' }] };

  it('says which authors alone are searched, when the question names who speaks', () => {
    expect(planText({ ...plan, authors: ['Ronald Reagan'] })).toContain('searched: only what Ronald Reagan wrote or said');
    expect(planText(plan)).not.toContain('searched:');
  });
});
