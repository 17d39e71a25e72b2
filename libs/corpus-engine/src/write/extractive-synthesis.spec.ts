import { describe, expect, it } from 'vitest';
import type { Finding } from '@orrery/protocol';
import { diverseSelection } from './extractive-synthesis';

const finding = (sourceId: string, score: number, subtopicId = 's'): Finding => ({
  id: `${sourceId}~q`,
  claim: 'q',
  sourceId,
  quote: 'q',
  subtopicId,
  relevance: { score, topicTerms: [], facetTerms: [] },
});

describe('diverseSelection', () => {
  const text = new Map([
    ['a1', 'The storm made landfall near the coast with strong winds and heavy rain.'],
    ['a2', 'The storm made landfall near the coast with strong winds and heavy rainfall.'],
    ['a3', 'The storm made landfall on the coast with strong winds and heavy rain overnight.'],
    ['b1', 'Relief agencies distributed food and shelter to displaced families after the disaster.'],
    ['c1', 'Insurers estimated the damage to property and crops at several billion dollars.'],
  ]);

  it('returns null when every source fits the budget', () => {
    expect(diverseSelection([[finding('a1', 1), finding('b1', 0.5)]], text, 5)).toBeNull();
  });

  it('spends the budget across sub-clusters rather than on near-duplicates of the best passage', () => {
    const q = [finding('a1', 1), finding('a2', 0.95), finding('a3', 0.9), finding('b1', 0.5), finding('c1', 0.45)];
    const chosen = diverseSelection([q], text, 3)!;
    expect([...chosen].sort()).toEqual(['a1', 'b1', 'c1']);
  });

  it('keeps each section its best source first', () => {
    const chosen = diverseSelection([[finding('a1', 1), finding('b1', 0.9)], [finding('a2', 0.2, 't')]], text, 2)!;
    expect([...chosen].sort()).toEqual(['a1', 'a2']);
  });
});
