import { describe, expect, it } from 'vitest';
import { effortFor } from './effort-for';

describe('effortFor', () => {
  it('straightforward is one task, one round, direct answer', () => {
    expect(effortFor('straightforward')).toMatchObject({ maxSubagentsPerRound: 1, maxRounds: 1, fullPipeline: false });
  });
  it('breadth fans out wider, depth goes more rounds', () => {
    const b = effortFor('breadth');
    const d = effortFor('depth');
    expect(b.maxSubagentsPerRound).toBeGreaterThan(d.maxSubagentsPerRound);
    expect(d.maxRounds).toBeGreaterThan(b.maxRounds);
    expect(b.fullPipeline && d.fullPipeline).toBe(true);
  });
  it('returns a copy callers may change', () => {
    const e = effortFor('breadth');
    e.maxRounds = 99;
    expect(effortFor('breadth').maxRounds).toBe(3);
  });
});
