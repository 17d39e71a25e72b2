import { type Attributes, context, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { inActiveSpan } from './active-span';

/** The GenAI conventions' tool types: `function` runs in the client, `extension` at the provider (a server tool), `datastore` queries data. */
export type ToolType = 'function' | 'extension' | 'datastore';

const toolAttributes = (name: string, type: ToolType, callId: string | undefined): Attributes => ({
  'gen_ai.operation.name': 'execute_tool',
  'gen_ai.tool.name': name,
  'gen_ai.tool.type': type,
  ...(callId ? { 'gen_ai.tool.call.id': callId } : {}),
});

/**
 * One tool call as an `execute_tool {gen_ai.tool.name}` span, as the OpenTelemetry GenAI conventions describe it
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/#execute-tool-span). A no-op span while tracing is off.
 */
export function inToolSpan<T>(name: string, type: ToolType, callId: string | undefined, fn: (span: Span) => Promise<T>): Promise<T> {
  return inActiveSpan(`execute_tool ${name}`, { attributes: toolAttributes(name, type, callId) }, fn);
}

/**
 * A server tool the provider ran inside one model call: a child of that call's span, spanning the call (the reply
 * does not say when within it the tool ran).
 */
export function recordServerToolCall(parent: Span, started: number, name: string, callId: string, failed: string | undefined): void {
  const tracer = trace.getTracer('orrery');
  const span = tracer.startSpan(`execute_tool ${name}`, { attributes: toolAttributes(name, 'extension', callId), startTime: started }, trace.setSpan(context.active(), parent));
  if (failed) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: failed });
    span.setAttribute('error.type', failed);
  }
  span.end();
}
