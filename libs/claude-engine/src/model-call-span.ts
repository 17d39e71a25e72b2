import { type Span, SpanKind } from '@opentelemetry/api';
import type { Message } from '@anthropic-ai/sdk/resources/messages';
import type { TokenUsage } from '@orrery/protocol';
import { inActiveSpan, recordServerToolCall } from '@orrery/engine';

/** When each open call began: its server tools' spans start there. */
const startedAt = new WeakMap<Span, number>();

/**
 * One Messages API request as a client span, named and described by the OpenTelemetry GenAI semantic conventions
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/): model, token counts with the cache's, finish
 * reason; the priced cost as `orrery.cost_usd`. A no-op span while tracing is off.
 */
export function inModelCallSpan<T>(model: string, maxTokens: number, label: string, fn: (span: Span) => Promise<T>): Promise<T> {
  const attributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'anthropic',
    'gen_ai.request.model': model,
    'gen_ai.request.max_tokens': maxTokens,
    'orrery.call': label,
  };
  const errorType = (err: Error): string => {
    const status = (err as { status?: unknown }).status;
    return typeof status === 'number' ? String(status) : err.name;
  };
  return inActiveSpan(`chat ${model}`, { kind: SpanKind.CLIENT, attributes, errorType }, (span) => {
    startedAt.set(span, Date.now());
    return fn(span);
  });
}

/**
 * The conventions count cache reads and writes inside `gen_ai.usage.input_tokens` (they SHOULD be included:
 * https://opentelemetry.io/docs/specs/semconv/registry/attributes/gen-ai/); the Messages API reports them beside it.
 */
export function recordModelResponse(span: Span, message: Message, usage: TokenUsage): void {
  if (!span.isRecording()) return;
  span.setAttributes({
    'gen_ai.response.id': message.id,
    'gen_ai.response.model': message.model,
    'gen_ai.response.finish_reasons': message.stop_reason ? [message.stop_reason] : [],
    'gen_ai.usage.input_tokens': usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
    'gen_ai.usage.output_tokens': usage.outputTokens,
    'gen_ai.usage.cache_read.input_tokens': usage.cacheReadTokens,
    'gen_ai.usage.cache_creation.input_tokens': usage.cacheWriteTokens,
    'orrery.cost_usd': usage.costUsd,
  });
  // The server tools (web search, web fetch) the provider ran within this call, each with its result's error code if any.
  const started = startedAt.get(span) ?? Date.now();
  for (const block of message.content) {
    if (block.type !== 'server_tool_use') continue;
    const result = message.content.find((b) => 'tool_use_id' in b && b.tool_use_id === block.id);
    const content = result && 'content' in result ? (result.content as unknown) : undefined;
    const failed = content && typeof content === 'object' && 'error_code' in content ? String((content as { error_code: unknown }).error_code) : undefined;
    recordServerToolCall(span, started, block.name, block.id, failed);
  }
}
