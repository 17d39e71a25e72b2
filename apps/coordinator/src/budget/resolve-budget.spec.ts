import { describe, expect, it } from 'vitest';
import { resolveBudget } from './resolve-budget';

const defaults = { maxTokens: 200_000, maxTasks: 20, maxRounds: 4, maxWallSeconds: 600, maxCostUsd: 25 };
const caps = { maxTokens: 1_000_000, maxTasks: 50, maxRounds: 8, maxWallSeconds: 1800, maxCostUsd: 250 };

describe('resolveBudget', () => {
  it('uses the defaults when nothing is requested', () => {
    expect(resolveBudget(defaults, caps)).toEqual(defaults);
  });
  it('lets a request lower any dimension', () => {
    expect(resolveBudget(defaults, caps, { maxTasks: 5, maxWallSeconds: 60 })).toEqual({ ...defaults, maxTasks: 5, maxWallSeconds: 60 });
  });
  it('never lets a request raise a dimension above the default', () => {
    expect(resolveBudget(defaults, caps, { maxTokens: 900_000, maxRounds: 7 })).toEqual(defaults);
  });
  it('clamps defaults configured above the hard caps', () => {
    expect(resolveBudget({ ...defaults, maxRounds: 20 }, caps).maxRounds).toBe(8);
  });
  it('lets a request lower the dollars, keeping cents', () => {
    expect(resolveBudget(defaults, caps, { maxCostUsd: 0.456 }).maxCostUsd).toBe(0.46);
    expect(resolveBudget(defaults, caps, { maxCostUsd: 90 }).maxCostUsd).toBe(25);
    expect(resolveBudget(defaults, caps, { maxCostUsd: 0.001 }).maxCostUsd).toBe(0.01);
  });
  it('ignores nonsense values and keeps integers >= 1', () => {
    expect(resolveBudget(defaults, caps, { maxTasks: 0, maxRounds: 2.7 })).toEqual({ ...defaults, maxRounds: 2 });
  });
});
