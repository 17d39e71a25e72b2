import { describe, expect, it } from 'vitest';
import { acceptVerdict } from './accept-verdict';
import type { JudgeVerdict } from './judge-types';

const v = (stateVersion: number): JudgeVerdict => ({ signal: 'stop', confidence: 0.9, reason: 'r', level: 'L2', stateVersion, signals: {} });

describe('acceptVerdict', () => {
  it('drops a verdict computed on an older state version and says why', () => {
    const r = acceptVerdict(v(4), 5);
    expect(r.accepted).toBe(false);
    if (r.accepted) throw new Error('unreachable');
    expect(r.reason).toBe('stale');
    expect(r.detail).toContain('4');
    expect(r.detail).toContain('5');
  });
  it('accepts a verdict on the current version', () => {
    expect(acceptVerdict(v(5), 5)).toEqual({ accepted: true, verdict: v(5) });
  });
  it('drops a verdict from a version ahead of the state', () => {
    const r = acceptVerdict(v(6), 5);
    expect(r).toMatchObject({ accepted: false, reason: 'future' });
  });
});
