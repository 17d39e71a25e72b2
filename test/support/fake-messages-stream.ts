/**
 * Server-sent events for a streamed fake reply, in the order and shapes of the streaming docs
 * (platform.claude.com/docs/en/build-with-claude/streaming) and the SDK's RawMessageStreamEvent types:
 * message_start (usage so far), per block content_block_start / *_delta / content_block_stop, message_delta
 * (stop_reason, container, cumulative usage with server_tool_use), message_stop; `ping` events keep the stream alive.
 */

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

export const sse = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** The events of one block: text and tool input arrive as deltas; result blocks arrive whole in their start event. */
export function blockEvents(block: Json, index: number): string[] {
  const out: string[] = [];
  if (block.type === 'text') {
    out.push(sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '', citations: null } }));
    const text: string = block.text ?? '';
    for (let i = 0; i < text.length; i += 64) {
      out.push(sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: text.slice(i, i + 64) } }));
    }
    for (const citation of block.citations ?? []) {
      out.push(sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'citations_delta', citation } }));
    }
  } else if (block.type === 'tool_use' || block.type === 'server_tool_use') {
    out.push(sse('content_block_start', { type: 'content_block_start', index, content_block: { ...block, input: {} } }));
    const json = JSON.stringify(block.input ?? {});
    for (let i = 0; i < json.length; i += 32) {
      out.push(sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(i, i + 32) } }));
    }
  } else {
    out.push(sse('content_block_start', { type: 'content_block_start', index, content_block: block }));
  }
  out.push(sse('content_block_stop', { type: 'content_block_stop', index }));
  return out;
}

export function messageEvents(message: Json): { start: string; rest: string[] } {
  const { content, stop_reason, stop_sequence, stop_details, usage, container, ...head } = message;
  const start = sse('message_start', {
    type: 'message_start',
    message: { ...head, content: [], stop_reason: null, stop_sequence: null, stop_details: null, container: null, usage: { ...usage, output_tokens: 1 } },
  });
  const rest = (content as Json[]).flatMap((b, i) => blockEvents(b, i));
  rest.push(
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason, stop_sequence, stop_details, container },
      usage: {
        output_tokens: usage.output_tokens,
        input_tokens: usage.input_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
        server_tool_use: usage.server_tool_use,
        output_tokens_details: usage.output_tokens_details,
      },
    }),
    sse('message_stop', { type: 'message_stop' }),
  );
  return { start, rest };
}

export const PING = sse('ping', { type: 'ping' });
