import Anthropic from '@anthropic-ai/sdk';
import type { TokenUsage } from '@orrery/protocol';
import type { EngineDecision } from '../engine';

/**
 * A Messages API failure after the SDK's own retries. `retryable` says whether a later attempt can succeed
 * (rate limit, overload, 5xx, connection): the worker lets BullMQ back off and retry those; the rest are permanent.
 */
export class AnthropicEngineError extends Error {
  override readonly name = 'AnthropicEngineError';
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    readonly errorType?: string,
    readonly requestId?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Structured output that failed validation twice (or was truncated, or refused). Caught by the engines to fall back. */
export class StructuredOutputError extends Error {
  override readonly name = 'StructuredOutputError';
  constructor(
    readonly purpose: string,
    readonly reason: 'invalid' | 'truncated' | 'refusal' | 'context-window' | 'unexpected-stop',
    readonly issues: string[],
    /** Tokens spent on the failed attempts, so the fallback can account for them. */
    readonly usage?: TokenUsage,
    readonly decisions: EngineDecision[] = [],
  ) {
    super(`${purpose}: model output ${reason}${issues.length ? `: ${issues.slice(0, 5).join('; ')}` : ''}`);
  }
}

export function toEngineError(err: unknown, what: string, maxRetries: number): unknown {
  if (err instanceof Anthropic.APIError) {
    const status = err.status;
    const type = err.type ?? undefined;
    const requestId = err.requestID ?? undefined;
    const retryable = status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;
    const kind =
      status === 429 ? 'rate limited (429)' : status === 529 ? 'overloaded (529)' : status !== undefined ? `HTTP ${status}` : 'connection failed';
    const tail = retryable
      ? `after ${maxRetries} SDK retries; retryable: the job should be retried with backoff`
      : 'not retryable: fix the request or configuration';
    return new AnthropicEngineError(
      `Anthropic Messages API ${kind} during ${what}${type ? ` [${type}]` : ''}${requestId ? ` (request-id ${requestId})` : ''}: ${err.apiMessage ?? err.message} — ${tail}`,
      retryable,
      status,
      type,
      requestId,
      { cause: err },
    );
  }
  return err;
}
