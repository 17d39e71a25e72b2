import type Anthropic from '@anthropic-ai/sdk';
import type {
  ContentBlock,
  ContentBlockParam,
  JSONOutputFormat,
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  ToolUnion,
} from '@anthropic-ai/sdk/resources/messages';
import { toEngineError } from './errors';

export interface SendParams {
  client: Anthropic;
  model: string;
  system: string;
  messages: MessageParam[];
  maxTokens: number;
  tools?: ToolUnion[];
  stopSequences?: string[];
  outputFormat?: JSONOutputFormat;
  /** Names the step in error messages. */
  label: string;
  signal?: AbortSignal;
}

/** The SDK refuses non-streaming requests it expects to take over 10 minutes; stay well below. */
export const MAX_NON_STREAMING_TOKENS = 16_000;

/** Marks the last tool definition as a prompt-cache breakpoint (tools are cached as a prefix). */
export function withCacheOnLastTool(tools: ToolUnion[]): ToolUnion[] {
  if (tools.length === 0) return tools;
  return tools.map((t, i) => (i === tools.length - 1 ? ({ ...t, cache_control: { type: 'ephemeral' } } as ToolUnion) : t));
}

/** One Messages API call. The SDK retries 429/529/5xx itself (honouring retry-after); what still fails is wrapped clearly. */
export async function sendMessage(p: SendParams): Promise<Message> {
  const params: MessageCreateParamsNonStreaming = {
    model: p.model,
    max_tokens: Math.min(p.maxTokens, MAX_NON_STREAMING_TOKENS),
    system: [{ type: 'text', text: p.system, cache_control: { type: 'ephemeral' } }],
    messages: p.messages,
  };
  if (p.tools?.length) params.tools = withCacheOnLastTool(p.tools);
  if (p.stopSequences?.length) params.stop_sequences = p.stopSequences;
  if (p.outputFormat) params.output_config = { format: p.outputFormat };
  try {
    return await p.client.messages.create(params, p.signal ? { signal: p.signal } : undefined);
  } catch (err) {
    throw toEngineError(err, p.label, p.client.maxRetries);
  }
}

export function textOf(content: ContentBlock[] | ContentBlockParam[]): string {
  return content
    .filter((b): b is Extract<ContentBlock, { type: 'text' }> => b.type === 'text')
    .map((b) => b.text)
    .join('');
}

/** Converts response blocks into request params unchanged (the API accepts its own output back). */
export const asParams = (content: ContentBlock[]): ContentBlockParam[] => content as unknown as ContentBlockParam[];

const SERVER_RESULT_TYPES = new Set([
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
]);

/** Ids of `server_tool_use` blocks that have no result block after them in the same content. */
export function orphanedServerToolUses(content: ReadonlyArray<{ type: string; id?: string; tool_use_id?: string }>): string[] {
  const answered = new Set(content.filter((b) => SERVER_RESULT_TYPES.has(b.type)).map((b) => b.tool_use_id));
  return content.filter((b) => b.type === 'server_tool_use' && !answered.has(b.id)).map((b) => b.id!);
}
