import type { Finding, Plan } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import { roundFigures } from './round-figures';

const plan: Plan = {
  classification: 'breadth',
  subtopics: ['a', 'b'].map((id) => ({ id, title: id, query: id, facetTerms: [], excludeTerms: [], origin: 'plan' as const })),
};
const f = (id: string, subtopicId: string): Finding => ({ id, claim: 'c', sourceId: id, quote: 'q', subtopicId });

describe('roundFigures', () => {
  it('counts evidence per subtopic, thin subtopics, coverage and novelty', () => {
    const r = roundFigures(plan, [f('1', 'a'), f('2', 'a'), f('3', 'b')], [], 4, 1);
    expect(r.evidence).toEqual({ a: 2, b: 1 });
    expect(r.thinSubtopicIds).toEqual(['b']);
    expect(r.coverage).toBe(0.5);
    expect(r.novelty).toBe(0.25);
  });
  it('gives zero novelty when nothing came back', () => {
    expect(roundFigures(plan, [], [], 0, 0).novelty).toBe(0);
  });
  it('counts a finding for every subtopic that brought it, once each, though the ledger keeps one copy', () => {
    const brought = [
      { subtopicId: 'a', findingId: '1' },
      { subtopicId: 'b', findingId: '1' },
      { subtopicId: 'b', findingId: '2' },
      { subtopicId: 'b', findingId: '2' },
    ];
    const r = roundFigures(plan, [f('1', 'a'), f('2', 'a')], brought, 3, 2);
    expect(r.evidence).toEqual({ a: 2, b: 2 });
    expect(r.thinSubtopicIds).toEqual([]);
    expect(r.coverage).toBe(1);
  });
});
