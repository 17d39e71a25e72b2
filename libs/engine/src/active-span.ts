import { type Attributes, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

/** What a failed span's `error.type` says: the error's class by default. */
export type ErrorType = (err: Error) => string;

/**
 * Runs `fn` in a child span of the active one: a thrown error is recorded, marks the span failed and names its
 * `error.type`, and the span ends when `fn` settles. A no-op span while tracing is off.
 */
export function inActiveSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes: Attributes; errorType?: ErrorType },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const { kind = SpanKind.INTERNAL, attributes, errorType = (err) => err.name } = options;
  return trace.getTracer('orrery').startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      span.setAttribute('error.type', errorType(err as Error));
      throw err;
    } finally {
      span.end();
    }
  });
}
