import { describe, expect, it } from 'vitest';
import { capBudgetByEffort, effortFor } from './effort-for';

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
  it('caps a budget without raising it', () => {
    const budget = { maxTokens: 100_000, maxTasks: 30, maxRounds: 4, maxWallSeconds: 600 };
    expect(capBudgetByEffort(budget, effortFor('straightforward'))).toEqual({ ...budget, maxRounds: 1, maxTasks: 1 });
    expect(capBudgetByEffort(budget, effortFor('depth'))).toEqual({ ...budget, maxRounds: 4, maxTasks: 21 });
    expect(capBudgetByEffort({ ...budget, maxTasks: 3 }, effortFor('breadth')).maxTasks).toBe(3);
  });
  it('returns a copy callers may change', () => {
    const e = effortFor('breadth');
    e.maxRounds = 99;
    expect(effortFor('breadth').maxRounds).toBe(3);
  });
});
