import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ModelJudgeInput as JudgeInput } from '../../libs/engine/src/engine';
import { AnthropicCoordinatorEngine } from '../../libs/claude-engine/src/coordinator-engine';
import { AnthropicEngineError } from '../../libs/claude-engine/src/errors';
import { apiError, FakeMessagesApi, reply } from '../support/fake-messages-api';

let api: FakeMessagesApi;
beforeAll(async () => {
  api = await FakeMessagesApi.start();
});
afterEach(() => api.reset());
afterAll(async () => api.close());

const input: JudgeInput = { goal: 'g', round: 1, lastActions: [], yield: { newFindings: 1, newSources: 1 }, stateSummary: 's', signalHistory: { pivots: 0 } };
const verdict = reply.json({ signal: 'continue', confidence: 0.6, reason: 'still finding new sources' });

describe('rate limits and overload', () => {
  it('429 with retry-after: the engine waits as told at its gate, sends again, and the call succeeds', async () => {
    api.enqueue(apiError.rateLimited(1), verdict);
    const engine = new AnthropicCoordinatorEngine({ client: api.client() });
    const started = Date.now();
    const v = await engine.judgeVerdict(input);
    const elapsed = Date.now() - started;
    expect(v.signal).toBe('continue');
    expect(api.requests.map((r) => r.status)).toEqual([429, 200]);
    expect(elapsed).toBeGreaterThanOrEqual(950); // honoured retry-after: 1
    // The engine retries, not the SDK: the SDK's own retries know nothing of the rest of the fleet.
    expect(api.requests.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '0']);
  });

  it('529 overloaded past the engine retries: a clear, retryable error for BullMQ to back off on', async () => {
    api.setHandler(() => apiError.overloaded());
    const engine = new AnthropicCoordinatorEngine({ client: { apiKey: 'k', baseURL: api.baseURL }, maxRetries: 1 });
    const err = await engine.judgeVerdict(input).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnthropicEngineError);
    const e = err as AnthropicEngineError;
    expect(e).toMatchObject({ retryable: true, status: 529, errorType: 'overloaded_error', requestId: 'req_fake0001' });
    expect(e.message).toBe(
      'Anthropic Messages API overloaded (529) during judge verdict [overloaded_error] (request-id req_fake0001): Overloaded — after 2 attempts; retryable: the job should be retried with backoff',
    );
    expect(api.requests).toHaveLength(2);
  });

  it('429s beyond the longest rate-limit wait are retryable, with their retry-after; a 400 is not', async () => {
    api.setHandler(() => apiError.rateLimited(1));
    const engine = new AnthropicCoordinatorEngine({ client: api.client(), maxRateLimitWaitMs: 1500 });
    await expect(engine.judgeVerdict(input)).rejects.toMatchObject({ retryable: true, status: 429, errorType: 'rate_limit_error', retryAfterMs: 1000 });
    expect(api.requests).toHaveLength(2);
    api.reset();
    api.setHandler(() => apiError.invalidRequest('max_tokens: too large'));
    await expect(engine.judgeVerdict(input)).rejects.toMatchObject({ retryable: false, status: 400, message: expect.stringMatching(/not retryable/) });
  });
});
