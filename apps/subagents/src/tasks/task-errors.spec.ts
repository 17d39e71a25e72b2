import { AnthropicEngineError, StructuredOutputError } from '@orrery/claude-engine';
import { EngineUnavailableError } from '@orrery/engines';
import { TaskResultSchema } from '@orrery/protocol';
import { UnrecoverableError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { isRetryableTaskError, toJobError } from './task-errors';

const apiError = (status: number, retryable: boolean) => new AnthropicEngineError(`HTTP ${status}`, retryable, status);

describe('task errors: what BullMQ retries and what fails for good', () => {
  it('429, 529, 5xx and connection failures (after the SDK retries) are thrown as is, for the job backoff', () => {
    for (const e of [apiError(429, true), apiError(529, true), apiError(500, true), new AnthropicEngineError('connection failed', true)]) {
      expect(isRetryableTaskError(e)).toBe(true);
      expect(toJobError(e)).toBe(e);
    }
  });

  it('non-retryable API errors, invalid output without fallback, schema failures and a missing engine are unrecoverable', () => {
    const zod = TaskResultSchema.safeParse({}).error!;
    const wrapped = new Error('Anthropic engine: no fallback engine is configured', { cause: new StructuredOutputError('plan', 'invalid', ['x']) });
    for (const e of [apiError(400, false), apiError(401, false), wrapped, zod, new EngineUnavailableError('no key')]) {
      expect(isRetryableTaskError(e)).toBe(false);
      const out = toJobError(e);
      expect(out).toBeInstanceOf(UnrecoverableError);
      expect(out.message).toMatch(/not retryable/);
    }
    expect(toJobError(zod).message).toMatch(/^schema check failed: /);
  });

  it('follows the cause chain, and retries what it does not know', () => {
    expect(isRetryableTaskError(new Error('outer', { cause: apiError(400, false) }))).toBe(false);
    expect(isRetryableTaskError(new Error('outer', { cause: apiError(529, true) }))).toBe(true);
    expect(isRetryableTaskError(new Error('ECONNRESET'))).toBe(true);
    expect(toJobError('boom')).toBeInstanceOf(Error);
  });
});
