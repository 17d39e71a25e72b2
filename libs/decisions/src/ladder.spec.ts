import { describe, expect, it } from 'vitest';
import { routeByConfidence } from './ladder';

describe('routeByConfidence', () => {
  it.each([
    [1, 'act'],
    [0.8001, 'act'],
    [0.8, 'act-and-flag'],
    [0.65, 'act-and-flag'],
    [0.5, 'act-and-flag'],
    [0.4999, 'escalate'],
    [0, 'escalate'],
    [Number.NaN, 'escalate'],
  ])('%s → %s', (c, route) => {
    expect(routeByConfidence(c)).toBe(route);
  });
});
