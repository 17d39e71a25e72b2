/**
 * What the fake Messages API refuses, with the API's 400 `invalid_request_error` messages. Every rule is one the real
 * API enforces; the comment on each says where it is documented.
 */

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

export const REQUEST_BLOCK_TYPES = new Set([
  'text',
  'image',
  'document',
  'search_result',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'tool_result',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'container_upload',
]);
export const SERVER_RESULT_TYPES = new Set([...REQUEST_BLOCK_TYPES].filter((t) => t.endsWith('_tool_result') && t !== 'tool_result'));
const SERVER_TOOL_TYPE = /^(web_search|web_fetch|code_execution|bash|text_editor|memory|tool_search_tool_(bm25|regex))_\d{8}$|^tool_search_tool_(bm25|regex)$/;
const CODE_EXECUTION_CALLER = /^code_execution_\d{8}$/;

export const blocksOf = (content: Json): Json[] => (typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : []);

/** Breakpoints in a request: blocks with `cache_control`, and the top-level one (automatic caching). */
export function countCacheControl(body: Json): number {
  let n = body?.cache_control ? 1 : 0;
  const visit = (v: Json): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') {
      if (v.cache_control) n += 1;
      for (const [k, x] of Object.entries(v)) if (k !== 'cache_control') visit(x);
    }
  };
  visit(body.system);
  visit(body.tools);
  visit(body.messages);
  return n;
}

function checkStrictSchema(schema: Json, path: string): string | undefined {
  if (!schema || typeof schema !== 'object') return undefined;
  if (schema.type === 'object' && schema.additionalProperties !== false) {
    return `${path}: For 'object' type, 'additionalProperties' must be explicitly set to false`;
  }
  for (const key of ['properties', '$defs', 'definitions']) {
    for (const [k, v] of Object.entries(schema[key] ?? {})) {
      const e = checkStrictSchema(v, `${path}.${key}.${k}`);
      if (e) return e;
    }
  }
  for (const key of ['items', 'anyOf', 'allOf', 'oneOf']) {
    const v = schema[key];
    for (const [i, s] of (Array.isArray(v) ? v : v ? [v] : []).entries()) {
      const e = checkStrictSchema(s, `${path}.${key}.${i}`);
      if (e) return e;
    }
  }
  return undefined;
}

/**
 * Consecutive `user` or `assistant` turns are combined into a single turn (the `messages` param in the SDK's
 * MessageCreateParams), so rules about "the next message" apply to the combined turn.
 */
export function combineTurns(messages: Json[]): Json[] {
  const out: Json[] = [];
  for (const m of messages) {
    const prev = out[out.length - 1];
    if (prev && prev.role === m?.role) out[out.length - 1] = { role: m.role, content: [...blocksOf(prev.content), ...blocksOf(m.content)] };
    else out.push(m);
  }
  return out;
}

/** Ids of the `server_tool_use` blocks of an assistant turn that have no result block in it. */
export const orphanServerUses = (blocks: Json[]): string[] => {
  const answered = new Set(blocks.filter((b) => SERVER_RESULT_TYPES.has(b.type)).map((b) => b.tool_use_id));
  return blocks.filter((b) => b.type === 'server_tool_use' && !answered.has(b.id)).map((b) => b.id);
};

/** Tool uses of the last assistant turn that code execution generated and that still wait for an answer. */
export function pendingCodeExecutionUses(messages: Json[]): string[] {
  const last = [...messages].reverse().find((m) => m?.role === 'assistant');
  if (!last) return [];
  const blocks = blocksOf(last.content);
  const fromCode = blocks.filter((b) => (b.type === 'tool_use' || b.type === 'server_tool_use') && CODE_EXECUTION_CALLER.test(b.caller?.type ?? '')).map((b) => b.id);
  const runningCode = orphanServerUses(blocks).filter((id) => blocks.find((b) => b.id === id)?.name === 'code_execution');
  const answered = new Set(blocks.filter((b) => SERVER_RESULT_TYPES.has(b.type)).map((b) => b.tool_use_id));
  return [...fromCode.filter((id) => !answered.has(id)), ...runningCode];
}

export interface ValidationOptions {
  /** Refuse consecutive messages of one role instead of combining them (the API combines them). Default false. */
  strictAlternation: boolean;
  /** Container ids this fake has handed out and that have not expired. */
  containers?: ReadonlySet<string>;
}

/** Returns the API's 400 message for an invalid request, or undefined when it is valid. */
export function validateMessagesRequest(body: Json, opts: ValidationOptions): string | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'Request body must be a JSON object';
  if (typeof body.model !== 'string' || !body.model) return 'model: Field required';
  if (body.max_tokens === undefined) return 'max_tokens: Field required';
  if (!Number.isInteger(body.max_tokens) || body.max_tokens < 0) return 'max_tokens: Input should be a valid integer greater than or equal to 0';
  if (body.stream !== undefined && typeof body.stream !== 'boolean') return 'stream: Input should be a valid boolean';
  if (body.system !== undefined && typeof body.system !== 'string') {
    if (!Array.isArray(body.system) || body.system.some((b: Json) => b?.type !== 'text' || typeof b.text !== 'string')) {
      return 'system: Input should be a valid string or a list of text blocks';
    }
  }
  if (body.stop_sequences !== undefined && (!Array.isArray(body.stop_sequences) || body.stop_sequences.some((s: Json) => typeof s !== 'string'))) {
    return 'stop_sequences: Input should be a valid list of strings';
  }
  if (body.cache_control !== undefined && body.cache_control !== null && body.cache_control?.type !== 'ephemeral') {
    return "cache_control.type: Input should be 'ephemeral'";
  }
  const raw = body.messages;
  if (!Array.isArray(raw)) return 'messages: Field required';
  if (raw.length === 0) return 'messages: at least one message is required';

  // Tools.
  const tools: Json[] = body.tools ?? [];
  if (!Array.isArray(tools)) return 'tools: Input should be a valid list';
  const names = new Set<string>();
  for (const [i, t] of tools.entries()) {
    if (typeof t?.name !== 'string' || !t.name) return `tools.${i}.name: Field required`;
    if (names.has(t.name)) return `tools: Tool names must be unique. Duplicate: ${t.name}`;
    names.add(t.name);
    if (t.type && t.type !== 'custom') {
      if (!SERVER_TOOL_TYPE.test(t.type)) return `tools.${i}.type: Input tag '${t.type}' found using 'type' does not match any of the expected tags`;
      if ((t.allowed_domains?.length ?? 0) > 0 && (t.blocked_domains?.length ?? 0) > 0) {
        return `tools.${i}: Cannot specify both allowed_domains and blocked_domains`;
      }
    } else {
      if (!t.input_schema) return `tools.${i}.custom.input_schema: Field required`;
      if (t.input_schema.type !== 'object') return `tools.${i}.custom.input_schema.type: Input should be 'object'`;
    }
    // A tool that code may call needs that code execution tool (programmatic tool calling: "This feature requires
    // the code execution tool to be enabled"; `allowed_callers` in the SDK's tool types).
    for (const caller of t.allowed_callers ?? []) {
      if (caller !== 'direct' && !tools.some((x) => x.type === caller)) {
        return `tools.${i}.allowed_callers: '${caller}' requires the ${caller} tool in tools`;
      }
    }
  }
  const serverToolNames = new Set(tools.filter((t) => t.type && t.type !== 'custom').map((t) => t.name));

  for (const [i, m] of raw.entries()) {
    if (m?.role !== 'user' && m?.role !== 'assistant') return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    if (opts.strictAlternation && i > 0 && raw[i - 1].role === m.role) {
      return `messages: roles must alternate between "user" and "assistant", but found multiple "${m.role}" roles in a row`;
    }
    if (typeof m.content !== 'string' && !Array.isArray(m.content)) return `messages.${i}.content: Input should be a valid string or list`;
    if (Array.isArray(m.content) && m.content.length === 0 && !(m.role === 'assistant' && i === raw.length - 1)) {
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    }
  }
  const messages = combineTurns(raw);
  if (messages[0].role !== 'user') return 'messages: first message must use the "user" role';

  // Roles, blocks, tool pairing, on the combined turns.
  let usesTools = false;
  for (const [i, m] of messages.entries()) {
    const blocks = blocksOf(m.content);
    for (const [j, b] of blocks.entries()) {
      if (!REQUEST_BLOCK_TYPES.has(b?.type)) return `messages.${i}.content.${j}.type: Input tag '${b?.type}' found using 'type' does not match any of the expected tags`;
      if (b.type === 'text' && typeof b.text !== 'string') return `messages.${i}.content.${j}.text: Field required`;
      if (b.type === 'text' && b.text.length === 0) return `messages.${i}.content.${j}: text content blocks must be non-empty`;
      const assistantOnly = b.type === 'tool_use' || b.type === 'server_tool_use' || SERVER_RESULT_TYPES.has(b.type);
      if (assistantOnly && m.role !== 'assistant') return `messages.${i}.content.${j}: \`${b.type}\` blocks are only allowed in assistant messages`;
      if (b.type === 'tool_result' && m.role !== 'user') return `messages.${i}.content.${j}: \`tool_result\` blocks are only allowed in user messages`;
      if (b.type === 'tool_use' || b.type === 'tool_result') usesTools = true;
      if (b.type === 'server_tool_use' && !serverToolNames.has(b.name)) {
        return `messages.${i}.content.${j}: server tool '${b.name}' is used but not defined in tools`;
      }
    }
    if (m.role === 'assistant') {
      const orphans = orphanServerUses(blocks);
      const toolUseIds = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id as string);
      // A server tool call without its result is allowed in the final (paused) turn, and in a turn that also called a
      // client tool: the API defers it and runs it when the tool results come back ("If Claude calls one of your
      // client tools at the same time, the server_tool_use block appears without its result, and the response ends
      // with stop_reason: tool_use. The API runs the tool when you return the client tool_result blocks": server
      // tools docs; "a server tool call still missing its result block completes in a later response": stop reasons).
      const deferred = orphans.length > 0 && toolUseIds.length > 0;
      if (orphans.length && i !== messages.length - 1 && !deferred) {
        return `messages.${i}: \`server_tool_use\` ids were found without a corresponding result block in the same message: ${orphans.join(', ')}`;
      }
      if (deferred && i + 1 < messages.length) {
        // The answer to a turn with a deferred server call carries tool results only: the server resumes that call
        // with them, and text there is refused.
        const next = blocksOf(messages[i + 1].content);
        const other = next.findIndex((b) => b.type !== 'tool_result');
        if (other !== -1) {
          return `messages.${i + 1}.content.${other}: this turn answers tool calls made alongside a deferred server tool call (${orphans.join(', ')}); it may contain only \`tool_result\` blocks, found \`${next[other].type}\``;
        }
      }
      // Result blocks belong to a server call of this turn, or to one deferred in the turn before the tool results.
      const serverIds = new Set(blocks.filter((b) => b.type === 'server_tool_use').map((b) => b.id));
      const earlier = i >= 2 ? blocksOf(messages[i - 2].content) : [];
      const deferredBefore = new Set(blocksOf(messages[i - 2]?.content).some((b) => b.type === 'tool_use') ? orphanServerUses(earlier) : []);
      const stray = blocks.filter((b) => SERVER_RESULT_TYPES.has(b.type) && !serverIds.has(b.tool_use_id) && !deferredBefore.has(b.tool_use_id)).map((b) => b.tool_use_id);
      if (stray.length) return `messages.${i}: result blocks reference unknown \`server_tool_use\` ids: ${stray.join(', ')}`;

      // Every tool_use is answered by a tool_result in the very next (user) turn.
      if (toolUseIds.length) {
        const next = messages[i + 1];
        const resultIds = new Set(next && next.role === 'user' ? blocksOf(next.content).filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id) : []);
        const missing = toolUseIds.filter((id) => !resultIds.has(id));
        if (missing.length) {
          return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
        }
      }
    } else {
      const results = blocks.filter((b) => b.type === 'tool_result');
      if (results.length) {
        const prev = messages[i - 1];
        const prevIds = new Set(prev ? blocksOf(prev.content).filter((b) => b.type === 'tool_use').map((b) => b.id) : []);
        const unexpected = results.map((b) => b.tool_use_id).filter((id) => !prevIds.has(id));
        if (unexpected.length) {
          return `messages.${i}.content.0: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${unexpected.join(', ')}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
        const firstOther = blocks.findIndex((b) => b.type !== 'tool_result');
        const lastResult = blocks.map((b) => b.type).lastIndexOf('tool_result');
        if (firstOther !== -1 && firstOther < lastResult) {
          return `messages.${i}: \`tool_result\` blocks must come first in the content of a user message, before any other content`;
        }
        const seen = new Set<string>();
        for (const r of results) {
          if (seen.has(r.tool_use_id)) return `messages.${i}: each \`tool_use_id\` may be answered only once: ${r.tool_use_id}`;
          seen.add(r.tool_use_id);
        }
      }
    }
  }
  if (usesTools && tools.filter((t) => !t.type || t.type === 'custom').length === 0) {
    return 'Requests which include `tool_use` or `tool_result` blocks must define tools.';
  }

  // Containers (programmatic tool calling docs, "provide tool result": the follow-up carries the container the
  // response named; the API's error otherwise is this one).
  if (pendingCodeExecutionUses(messages).length > 0 && !body.container) {
    return 'container_id is required when there are pending tool uses generated by code execution with tools.';
  }
  if (body.container !== undefined && body.container !== null) {
    const id = typeof body.container === 'string' ? body.container : body.container.id;
    if (id && opts.containers && !opts.containers.has(id)) return `container: container '${id}' was not found or has expired`;
  }

  // At most 4 breakpoints, the top-level one included (prompt caching docs).
  const cacheBlocks = countCacheControl(body);
  if (cacheBlocks > 4) return `A maximum of 4 blocks with cache_control may be provided. Found ${cacheBlocks}.`;

  const format = body.output_config?.format;
  if (format !== undefined && format !== null) {
    if (format.type !== 'json_schema') return `output_config.format.type: Input should be 'json_schema'`;
    if (!format.schema || typeof format.schema !== 'object') return 'output_config.format.schema: Field required';
    const e = checkStrictSchema(format.schema, 'output_config.format.schema');
    if (e) return e;
  }
  return undefined;
}
