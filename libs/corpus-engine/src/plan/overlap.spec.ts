import { describe, expect, it } from 'vitest';
import { coveredShare, jaccard, maxPairwiseOverlap } from './overlap';

describe('overlap measures', () => {
  it('jaccard is |A∩B| / |A∪B|', () => {
    expect(jaccard(new Set([1, 2, 3]), new Set([2, 3, 4]))).toBeCloseTo(0.5);
    expect(jaccard(new Set([1]), new Set([2]))).toBe(0);
    expect(jaccard(new Set(), new Set())).toBe(0);
    expect(jaccard(new Set(['a']), new Set(['a']))).toBe(1);
  });
  it('maxPairwiseOverlap finds the most overlapping pair', () => {
    const r = maxPairwiseOverlap([new Set([1, 2]), new Set([3, 4]), new Set([3, 4, 5])]);
    expect(r.value).toBeCloseTo(2 / 3);
    expect(r.pair).toEqual([1, 2]);
    expect(maxPairwiseOverlap([new Set([1])]).pair).toBeNull();
  });
  it('coveredShare weighs what is covered', () => {
    const w = new Map([
      ['a', 3],
      ['b', 1],
    ]);
    expect(coveredShare(w, new Set(['a']))).toBeCloseTo(0.75);
    expect(coveredShare(new Map(), new Set(['a']))).toBe(0);
  });
});
