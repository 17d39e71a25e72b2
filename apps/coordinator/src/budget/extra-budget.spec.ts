import { describe, expect, it } from 'vitest';
import { grantExtraBudget } from './extra-budget';

const defaults = { maxTokens: 2_000_000, maxTasks: 40, maxRounds: 3, maxWallSeconds: 900, maxCostUsd: 25 };
const caps = { maxTokens: 10_000_000, maxTasks: 200, maxRounds: 10, maxWallSeconds: 3600, maxCostUsd: 250 };
const tenant = { ceiling: defaults, ceilingName: "the server's default budget" };
const admin = { ceiling: caps, ceilingName: 'the hard cap' };
const lowered = { maxTokens: 100_000, maxTasks: 5, maxRounds: 1, maxWallSeconds: 300, maxCostUsd: 2 };
const nothingSpent = { tokens: 0, costUsd: 0 };

describe('grantExtraBudget', () => {
  it('lets a tenant lift a lowered run back up to the server defaults', () => {
    const g = grantExtraBudget(lowered, nothingSpent, { maxTasks: 35, maxRounds: 2, maxCostUsd: 23 }, tenant);
    expect(g).toEqual({ ok: true, budget: { ...lowered, maxTasks: 40, maxRounds: 3, maxCostUsd: 25 } });
  });

  it('refuses a tenant past the defaults, naming each dimension and the most it may add', () => {
    const g = grantExtraBudget(defaults, nothingSpent, { maxTasks: 100_000, maxTokens: 8_000_000, maxCostUsd: 225 }, tenant);
    expect(g.ok).toBe(false);
    if (g.ok) return;
    expect(g.most).toEqual({ maxTokens: 0, maxTasks: 0, maxRounds: 0, maxWallSeconds: 0, maxCostUsd: 0 });
    expect(g.exceeded).toEqual([
      "maxTokens +8000000 is more than this key may add: at most +0 (the run has 2000000; the server's default budget is 2000000)",
      "maxTasks +100000 is more than this key may add: at most +0 (the run has 40; the server's default budget is 40)",
      "maxCostUsd +$225.00 is more than this key may add: at most +$0.00 (the run has $25.00; the server's default budget is $25.00)",
    ]);
  });

  it('holds a tenant to what its daily quotas have left, counting what the run has spent', () => {
    // $3 left today and $1.50 spent by the run: it may be lifted to $4.50, so by $2.50 from its $2.
    const quotaLeft = { tokens: 50_000, costUsd: 3 };
    const spent = { tokens: 80_000, costUsd: 1.5 };
    const g = grantExtraBudget(lowered, spent, { maxTokens: 30_000, maxCostUsd: 2.5 }, { ...tenant, quotaLeft });
    expect(g).toEqual({ ok: true, budget: { ...lowered, maxTokens: 130_000, maxCostUsd: 4.5 } });
    const over = grantExtraBudget(lowered, spent, { maxCostUsd: 2.51 }, { ...tenant, quotaLeft });
    expect(over.ok).toBe(false);
    if (over.ok) return;
    expect(over.most).toMatchObject({ maxTokens: 30_000, maxCostUsd: 2.5 });
    expect(over.exceeded).toEqual(["maxCostUsd +$2.51 is more than this key may add: at most +$2.50 (the run has $2.00; this key's daily quota has $3.00 left and the run has spent $1.50)"]);
  });

  it('a run already allowed more than the quota has left keeps its budget but is lifted no further', () => {
    const g = grantExtraBudget(lowered, nothingSpent, { maxTokens: 1 }, { ...tenant, quotaLeft: { tokens: 10 } });
    expect(g.ok).toBe(false);
    if (!g.ok) expect(g.most.maxTokens).toBe(0);
  });

  it('lets an admin key lift a run up to the hard caps, and no further', () => {
    expect(grantExtraBudget(defaults, nothingSpent, { maxTasks: 160, maxCostUsd: 225 }, admin)).toEqual({ ok: true, budget: { ...defaults, maxTasks: 200, maxCostUsd: 250 } });
    const g = grantExtraBudget(defaults, nothingSpent, { maxTasks: 161 }, admin);
    expect(g.ok).toBe(false);
    if (!g.ok) expect(g.exceeded).toEqual(['maxTasks +161 is more than this key may add: at most +160 (the run has 40; the hard cap is 200)']);
  });
});
