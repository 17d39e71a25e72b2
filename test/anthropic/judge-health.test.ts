/**
 * The judge model's health probe: one minimal verdict within a round decision's budget. A judge that answers is
 * healthy; one that takes longer than the budget, or fails, is not, and the probe says why.
 */
import { AnthropicCoordinatorEngine } from '@orrery/claude-engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeJudge } from '../../apps/coordinator/src/judge/judge-probe';
import { apiError, FakeMessagesApi, reply } from '../support/fake-messages-api';

describe('judge health probe', () => {
  let api: FakeMessagesApi;
  beforeAll(async () => {
    api = await FakeMessagesApi.start();
  });
  afterAll(async () => {
    await api.close();
  });
  const judge = () => new AnthropicCoordinatorEngine({ client: api.client({ maxRetries: 0 }) });

  it('a judge that answers within the budget is healthy, and the probe cost one small request', async () => {
    api.reset();
    api.setHandler(() => reply.json({ signal: 'continue', confidence: 0.7, reason: 'one subtopic still thin' }));
    const r = await probeJudge(judge(), 2000);
    expect(r).toMatchObject({ ok: true });
    expect(r.ms).toBeLessThan(2000);
    expect(api.accepted).toHaveLength(1);
    expect(api.accepted[0]!.role).toBe('judge');
  });

  it('a judge slower than the budget is not: the probe gives up at the budget and says so', async () => {
    api.reset();
    api.setHandler(async () => {
      await new Promise((r) => setTimeout(r, 1500));
      return reply.json({ signal: 'continue', confidence: 0.7, reason: 'late' });
    });
    const r = await probeJudge(judge(), 300);
    expect(r).toMatchObject({ ok: false, error: 'no answer within 300 ms' });
    expect(r.ms).toBeLessThan(1000);
  });

  it('a judge whose API fails is not, with the error', async () => {
    api.reset();
    api.setHandler(() => apiError.invalidRequest('model: not found'));
    const r = await probeJudge(judge(), 2000);
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/400|not found/);
  });
});
