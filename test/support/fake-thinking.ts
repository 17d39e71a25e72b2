/**
 * How the fake Messages API thinks, as the current models do. From platform.claude.com/docs/en/models/opus-5-5/
 * whats-new-opus-5-5 (the same points for Sonnet 5.5 on models/sonnet-5-5/overview, Haiku 5.5 on
 * models/haiku-5-5/overview) and the SDK's ThinkingConfigAdaptive / OutputConfig / OutputTokensDetails types:
 * - adaptive thinking is on by default on the 5.x models; `output_config.effort` sets its depth, default `medium`
 *   on Opus 5.5 and Haiku 5.5, `high` on Sonnet 5.5 and Fable ("How it compares", Default effort);
 * - thinking tokens are output tokens: they count toward `max_tokens` and are billed as output, and
 *   `usage.output_tokens_details.thinking_tokens` says how many (OutputTokensDetails: "Always ≤ output_tokens");
 * - "Thinking can't be disabled" on Opus 5.5 and Fable 5.1: `thinking: {type: "disabled"}` or a manual budget is a 400;
 * - "Forced tool use returns an error" (Opus 5.5, Sonnet 5.5, Fable 5.1): `tool_choice` `any` or `tool` is a 400;
 * - "Thinking blocks are tied to the model and the conversation": a thinking block sent back is checked against the
 *   conversation before it; a changed prefix (a rewritten tool result, say) makes its signature invalid;
 * - "Text between tool calls" comes back in thinking blocks (Opus 5.5, Sonnet 5.5, Fable 5.1), whose text is empty at
 *   the default `display: "omitted"`; `display: "summarized"` returns it.
 * How many tokens a turn thinks is the fake's own choice, by effort (the docs give no figure).
 */
import { createHash } from 'node:crypto';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const ids = (model: string, prefixes: string[]): boolean => prefixes.some((p) => model === p || model.startsWith(`${p}-2`));

/** Models that think by default (adaptive thinking, default on). */
export const thinksByDefault = (model: string): boolean => /^claude-(opus|sonnet|haiku|fable|mythos)-5/.test(model);
/** Models that refuse thinking disabled or a manual budget. */
const alwaysThinks = (model: string): boolean => ids(model, ['claude-opus-5-5', 'claude-fable-5-1', 'claude-mythos-5-1']);
/** Models that refuse forced tool use, and return text between tool calls as thinking. */
const newToolBehaviour = (model: string): boolean => ids(model, ['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-fable-5-1', 'claude-mythos-5-1']);

const DEFAULT_EFFORT: Array<[RegExp, string]> = [
  [/^claude-(opus|haiku)-5-5/, 'medium'],
  [/^claude-/, 'high'],
];
export const THINKING_TOKENS: Record<string, number> = { low: 150, medium: 600, high: 1500, xhigh: 3000, max: 6000 };

export const effortOf = (body: Json): string => body.output_config?.effort ?? DEFAULT_EFFORT.find(([re]) => re.test(String(body.model)))![1];

/** The 400 for a thinking or tool_choice setting the model refuses, or undefined. */
export function refusedThinkingSettings(body: Json): string | undefined {
  const model = String(body.model);
  const t = body.thinking?.type;
  if (t !== undefined && !['adaptive', 'enabled', 'disabled', 'between_tools'].includes(t)) {
    return `thinking.type: Input tag '${t}' found using 'type' does not match any of the expected tags`;
  }
  if (alwaysThinks(model) && (t === 'disabled' || t === 'enabled')) {
    return `"thinking.type.${t}" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`;
  }
  const effort = body.output_config?.effort;
  if (effort !== undefined && effort !== null && !THINKING_TOKENS[effort]) return `output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'`;
  const choice = body.tool_choice?.type;
  if (newToolBehaviour(model) && (choice === 'any' || choice === 'tool')) {
    return `tool_choice.type: forced tool use ('${choice}') is not supported for this model; use 'auto' or 'none'`;
  }
  return undefined;
}

/** What a signature covers: the model, the turns before the thinking block's turn, and that turn's blocks before it. */
const canonicalBlock = (b: Json): Json => {
  switch (b?.type) {
    case 'text':
      return { type: 'text', text: b.text };
    case 'thinking':
      return { type: 'thinking', signature: b.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: b.data };
    case 'tool_use':
    case 'server_tool_use':
      return { type: b.type, id: b.id, name: b.name, input: b.input };
    case 'tool_result':
      return { type: 'tool_result', tool_use_id: b.tool_use_id, content: typeof b.content === 'string' ? b.content : (b.content ?? []).map(canonicalBlock), is_error: !!b.is_error };
    default:
      return { type: b?.type, tool_use_id: b?.tool_use_id, content: b?.content };
  }
};
const blocks = (content: Json): Json[] => (typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : []);

export function signature(model: string, before: Json[], turnBlocks: Json[]): string {
  const prefix = JSON.stringify([before.map((m) => ({ role: m.role, content: blocks(m.content).map(canonicalBlock) })), turnBlocks.map(canonicalBlock)]);
  return `sig_${createHash('sha256').update(model).update('\0').update(prefix).digest('base64')}`;
}

/** The 400 for a thinking block whose conversation has changed since it was returned (combined turns), or undefined. */
export function invalidThinkingSignature(model: string, messages: Json[]): string | undefined {
  for (const [i, m] of messages.entries()) {
    if (m.role !== 'assistant') continue;
    const bs = blocks(m.content);
    for (const [j, b] of bs.entries()) {
      if (b.type !== 'thinking') continue;
      if (b.signature !== signature(model, messages.slice(0, i), bs.slice(0, j))) return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`;
    }
  }
  return undefined;
}
