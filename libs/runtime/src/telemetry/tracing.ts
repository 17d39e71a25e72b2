import { type Attributes, context, propagation, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { BullMQOtel } from 'bullmq-otel';
import { tracingConfigured } from './tracing-config';

export { SpanKind };
const TRACER = 'orrery';
let shutdown: (() => Promise<void>) | undefined;

/**
 * Starts this process's tracing when the OTEL_* variables ask for it; a no-op otherwise, and the SDK is not even
 * loaded. Call before anything creates a queue or a worker.
 */
export function startTracing(serviceName: string): void {
  if (shutdown || !tracingConfigured()) return;
  // Loaded only here, so a process that exports nothing carries none of it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sdk = require('./tracing-sdk') as typeof import('./tracing-sdk');
  shutdown = sdk.registerTracing(serviceName);
}

/** Sends the spans still buffered; at shutdown. */
export async function stopTracing(): Promise<void> {
  const stop = shutdown;
  shutdown = undefined;
  await stop?.().catch(() => undefined);
}

/** Whether this process exports spans. */
export function tracingActive(): boolean {
  return shutdown !== undefined;
}

/** BullMQ's own telemetry (producer and consumer spans, trace context carried in each job), when tracing is on. */
export function bullTelemetry(): BullMQOtel | undefined {
  return shutdown ? new BullMQOtel({ tracerName: 'bullmq' }) : undefined;
}

/** Runs `fn` in a child span of the active one; the span records a thrown error and ends when `fn` settles. */
export function inSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>, kind: SpanKind = SpanKind.INTERNAL): Promise<T> {
  return trace.getTracer(TRACER).startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** The active trace context as a W3C `traceparent`, to store with what outlives this request (a run). */
export function currentTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** Runs `fn` inside a stored trace context, so what it starts (a job, a span) joins that trace. */
export function withTraceparent<T>(traceparent: string | undefined, fn: () => T): T {
  if (!traceparent) return fn();
  return context.with(propagation.extract(context.active(), { traceparent }), fn);
}

/** The active trace's id, for log lines. */
export function activeTraceId(): string | undefined {
  const ctx = trace.getActiveSpan()?.spanContext();
  return ctx && ctx.traceFlags !== undefined && ctx.traceId !== '00000000000000000000000000000000' ? ctx.traceId : undefined;
}
