import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicCoordinatorEngine, AnthropicEngineError, type JudgeInput } from '../../libs/engines/src/anthropic';
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
  it('429 with retry-after: the SDK waits as told, retries, and the call succeeds', async () => {
    api.enqueue(apiError.rateLimited(1), verdict);
    const engine = new AnthropicCoordinatorEngine({ client: api.client({ maxRetries: 2 }) });
    const started = Date.now();
    const v = await engine.judgeVerdict(input);
    const elapsed = Date.now() - started;
    expect(v.signal).toBe('continue');
    expect(api.requests.map((r) => r.status)).toEqual([429, 200]);
    expect(elapsed).toBeGreaterThanOrEqual(950); // honoured retry-after: 1
    expect(api.requests[1]!.headers['x-stainless-retry-count']).toBe('1');
  });

  it('529 overloaded past the SDK retries: a clear, retryable error for BullMQ to back off on', async () => {
    api.setHandler(() => apiError.overloaded());
    const engine = new AnthropicCoordinatorEngine({ client: { apiKey: 'k', baseURL: api.baseURL, maxRetries: 1 } });
    const err = await engine.judgeVerdict(input).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnthropicEngineError);
    const e = err as AnthropicEngineError;
    expect(e).toMatchObject({ retryable: true, status: 529, errorType: 'overloaded_error', requestId: 'req_fake0001' });
    expect(e.message).toBe(
      'Anthropic Messages API overloaded (529) during judge verdict [overloaded_error] (request-id req_fake0001): Overloaded — after 1 SDK retries; retryable: the job should be retried with backoff',
    );
    expect(api.requests).toHaveLength(2);
  });

  it('429 past the SDK retries is retryable too; a 400 is not', async () => {
    api.setHandler(() => apiError.rateLimited(0));
    const engine = new AnthropicCoordinatorEngine({ client: api.client({ maxRetries: 0 }) });
    await expect(engine.judgeVerdict(input)).rejects.toMatchObject({ retryable: true, status: 429, errorType: 'rate_limit_error' });
    api.reset();
    api.setHandler(() => apiError.invalidRequest('max_tokens: too large'));
    await expect(engine.judgeVerdict(input)).rejects.toMatchObject({ retryable: false, status: 400, message: expect.stringMatching(/not retryable/) });
  });
});
