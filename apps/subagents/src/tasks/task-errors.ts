import { formatZodError } from '@orrery/protocol';
import { EngineError } from '@orrery/engine';
import { EngineUnavailableError } from '@orrery/engines';
import { StructuredOutputError } from '@orrery/claude-engine';
import { UnrecoverableError } from 'bullmq';
import { ZodError } from 'zod';

/**
 * Whether another attempt of a task can succeed. Walks the `cause` chain:
 * - an EngineError says so itself (`retryable`: for Claude 429/529/5xx/connection after the SDK's own retries);
 * - model output that failed validation twice with no fallback, data that fails its schema, and a missing engine
 *   or corpus are permanent;
 * - anything else (Redis hiccup, a crash inside a tool) is retried by the job's attempts and backoff.
 */
export function isRetryableTaskError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof UnrecoverableError) return false;
    if (e instanceof EngineError) return e.retryable;
    if (e instanceof StructuredOutputError || e instanceof ZodError || e instanceof EngineUnavailableError) return false;
  }
  return true;
}

/** How long a task that gave up on a 429 should leave the queue shut (its retry-after), or undefined. */
export function rateLimitedFor(err: unknown): number | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof EngineError) return e.rateLimitedForMs;
  }
  return undefined;
}

/** What the worker throws: the error itself when BullMQ should back off and retry, else an UnrecoverableError (no more attempts). */
export function toJobError(err: unknown): Error {
  if (isRetryableTaskError(err)) return err instanceof Error ? err : new Error(String(err));
  if (err instanceof UnrecoverableError) return err;
  const message = err instanceof ZodError ? `schema check failed: ${formatZodError(err)}` : err instanceof Error ? err.message : String(err);
  return new UnrecoverableError(`${message} (not retryable)`);
}
