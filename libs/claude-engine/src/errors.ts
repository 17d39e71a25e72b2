import Anthropic from '@anthropic-ai/sdk';
import type { TokenUsage } from '@orrery/protocol';
import { type EngineDecision, EngineError } from '@orrery/engine';

/**
 * A Messages API failure after the engine's own retries. `retryable` says whether a later attempt can succeed
 * (rate limit, overload, 5xx, connection): the worker lets BullMQ back off and retry those; the rest are permanent.
 */
export class AnthropicEngineError extends EngineError {
  override readonly name = 'AnthropicEngineError';
  constructor(
    message: string,
    retryable: boolean,
    readonly status?: number,
    readonly errorType?: string,
    readonly requestId?: string,
    options?: { cause?: unknown; retryAfterMs?: number; aborted?: boolean; waitForMs?: number },
  ) {
    // A 429, or an outage that outlasted the wait cap (waitForMs): the task goes back to its queue for that long.
    const waitMs = status === 429 ? Math.max(1000, options?.retryAfterMs ?? 1000) : options?.waitForMs !== undefined ? Math.max(1000, options.waitForMs) : undefined;
    super(message, retryable, { ...(options?.cause !== undefined ? { cause: options.cause } : {}), ...(waitMs !== undefined ? { rateLimitedForMs: waitMs } : {}) });
    this.retryAfterMs = options?.retryAfterMs;
    this.aborted = options?.aborted ?? false;
  }
  /** For a 429: how long the API asked to wait (`retry-after`). */
  readonly retryAfterMs?: number;
  /** The caller aborted the request (its signal): neither a failure of the API nor worth a retry. */
  readonly aborted: boolean;

  /**
   * A request the API refuses as it stands (400 invalid_request_error such as "prompt is too long", 413
   * request_too_large): another engine can still answer the step. Auth, permission and unknown-model errors are
   * configuration to fix, and say so instead.
   */
  get requestRefused(): boolean {
    return !this.retryable && !this.aborted && (this.status === 400 || this.status === 413);
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

/** An error a step can recover from by falling back to another engine: bad model output, or a request the API refuses. */
export const isFallbackWorthy = (err: unknown): err is StructuredOutputError | AnthropicEngineError =>
  err instanceof StructuredOutputError || (err instanceof AnthropicEngineError && err.requestRefused);

export function toEngineError(err: unknown, what: string, attempts: number, extra: { retryAfterMs?: number } = {}): unknown {
  // The SDK's APIUserAbortError is an APIError without a status, like a connection failure: tell them apart first.
  if (err instanceof Anthropic.APIUserAbortError || (err instanceof Error && err.name === 'AbortError')) {
    return new AnthropicEngineError(`Anthropic Messages API request aborted by the caller during ${what}`, false, undefined, 'aborted', undefined, {
      cause: err,
      aborted: true,
    });
  }
  if (err instanceof Anthropic.APIError) {
    const status = err.status;
    const type = err.type ?? undefined;
    const requestId = err.requestID ?? undefined;
    const retryable = status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;
    const kind =
      status === 429 ? 'rate limited (429)' : status === 529 ? 'overloaded (529)' : status !== undefined ? `HTTP ${status}` : 'connection failed';
    const tail = retryable
      ? `after ${attempts} attempts; retryable: the job should be retried with backoff`
      : 'not retryable: fix the request or configuration';
    return new AnthropicEngineError(
      `Anthropic Messages API ${kind} during ${what}${type ? ` [${type}]` : ''}${requestId ? ` (request-id ${requestId})` : ''}: ${err.apiMessage ?? err.message} — ${tail}`,
      retryable,
      status,
      type,
      requestId,
      { cause: err, ...(extra.retryAfterMs !== undefined ? { retryAfterMs: extra.retryAfterMs } : {}) },
    );
  }
  return err;
}
