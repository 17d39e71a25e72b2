/**
 * A faithful stand-in for the Anthropic Messages API (`POST /v1/messages`) for tests: a real HTTP server the real SDK
 * talks to through `baseURL`. It validates requests the way the API does (400 `invalid_request_error` otherwise),
 * records every request, and answers from a script: queues per role or global, or a handler function of the request.
 *
 *   const api = await FakeMessagesApi.start();
 *   api.scriptByRole({ planner: reply.json({...}), researcher: [reply.toolUse([...]), reply.text('notes')] });
 *   const client = api.client();            // Anthropic SDK client pointed at the fake
 *   ...
 *   await api.close();
 *
 * Roles come from the `Orrery role: <role>.` line the engine puts at the top of every system prompt.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal' | 'model_context_window_exceeded';

export interface FakeMessageReply {
  kind: 'message';
  content: Json[];
  stop_reason: StopReason;
  stop_sequence?: string | null;
  stop_details?: { type?: string; category: string | null; explanation: string | null } | null;
  /** Overrides for the simulated usage. */
  usage?: Partial<{ input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number }>;
  /** Set by `reply.json`: the request must carry `output_config.format` with a schema, else the fake answers 400. */
  requireOutputFormat?: boolean;
}
export interface FakeErrorReply {
  kind: 'error';
  status: number;
  errorType: string;
  message: string;
  headers?: Record<string, string>;
}
export type FakeReply = FakeMessageReply | FakeErrorReply;

/** What a handler sees of a (valid) request. */
export interface FakeRequest {
  index: number;
  body: Json;
  role: string | undefined;
  system: string;
  messages: Json[];
  tools: Json[];
  /** The tool_result blocks of the last user message. */
  toolResults: Json[];
  /** All text of the last user message. */
  lastUserText: string;
  outputSchema: Json | undefined;
}
export type FakeHandler = (req: FakeRequest) => FakeReply | Promise<FakeReply>;
type Scripted = FakeReply | FakeHandler;

export interface RecordedRequest {
  index: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: Json;
  role: string | undefined;
  /** What the fake answered. */
  status: number;
  /** The 400 message when validation failed. */
  validationError?: string;
  stopReason?: StopReason;
}

/* ------------------------------------------------------------------------------------------------ builders */

let idCounter = 0;
const nextId = (prefix: string): string => `${prefix}_fake${String(++idCounter).padStart(4, '0')}${randomUUID().slice(0, 8)}`;

export interface WebResult {
  url: string;
  title: string;
}
export interface Citation {
  url: string;
  title: string;
  cited_text: string;
}

/** A `server_tool_use` (web_search) and its `web_search_tool_result`, as the API returns them. */
export function webSearchBlocks(query: string, results: WebResult[]): Json[] {
  const id = nextId('srvtoolu');
  return [
    { type: 'server_tool_use', id, name: 'web_search', input: { query }, caller: { type: 'direct' } },
    {
      type: 'web_search_tool_result',
      tool_use_id: id,
      caller: { type: 'direct' },
      content: results.map((r) => ({ type: 'web_search_result', url: r.url, title: r.title, encrypted_content: `enc_${Buffer.from(r.url).toString('base64')}`, page_age: null })),
    },
  ];
}

export function textBlock(text: string, citations?: Citation[]): Json {
  return {
    type: 'text',
    text,
    citations: citations?.length
      ? citations.map((c) => ({ type: 'web_search_result_location', url: c.url, title: c.title, cited_text: c.cited_text, encrypted_index: `idx_${c.url.length}` }))
      : null,
  };
}

export const reply = {
  /** end_turn with plain text (optionally with web_search_result_location citations). */
  text: (text: string, citations?: Citation[]): FakeMessageReply => ({ kind: 'message', content: [textBlock(text, citations)], stop_reason: 'end_turn' }),
  /** end_turn with arbitrary blocks. */
  endTurn: (content: Json[]): FakeMessageReply => ({ kind: 'message', content, stop_reason: 'end_turn' }),
  /** A structured-output answer: end_turn with the JSON text. The request must carry output_config.format. */
  json: (value: unknown): FakeMessageReply => ({ kind: 'message', content: [textBlock(JSON.stringify(value))], stop_reason: 'end_turn', requireOutputFormat: true }),
  /** A structured-output answer whose text is given raw (e.g. invalid JSON). */
  rawJson: (text: string): FakeMessageReply => ({ kind: 'message', content: [textBlock(text)], stop_reason: 'end_turn', requireOutputFormat: true }),
  /** tool_use with one or more client tool calls, optionally preceded by text (the "text + tool_use" case). */
  toolUse: (calls: Array<{ name: string; input: unknown; id?: string }>, text?: string, extra: Json[] = []): FakeMessageReply => ({
    kind: 'message',
    content: [
      ...(text ? [textBlock(text)] : []),
      ...extra,
      ...calls.map((c) => ({ type: 'tool_use', id: c.id ?? nextId('toolu'), name: c.name, input: c.input, caller: { type: 'direct' } })),
    ],
    stop_reason: 'tool_use',
  }),
  /** pause_turn after server web searches: server_tool_use + web_search_tool_result pairs, then (optionally) text. */
  pauseTurn: (searches: Array<{ query: string; results: WebResult[] }>, text?: string): FakeMessageReply => ({
    kind: 'message',
    content: [...searches.flatMap((s) => webSearchBlocks(s.query, s.results)), ...(text ? [textBlock(text)] : [])],
    stop_reason: 'pause_turn',
  }),
  /** pause_turn with a server_tool_use still running (no result yet): must be sent back as the last message. */
  pauseTurnPending: (query: string): FakeMessageReply => ({
    kind: 'message',
    content: [{ type: 'server_tool_use', id: nextId('srvtoolu'), name: 'web_search', input: { query }, caller: { type: 'direct' } }],
    stop_reason: 'pause_turn',
  }),
  maxTokens: (partialText: string): FakeMessageReply => ({ kind: 'message', content: [textBlock(partialText)], stop_reason: 'max_tokens' }),
  stopSequence: (text: string, sequence: string): FakeMessageReply => ({ kind: 'message', content: [textBlock(text)], stop_reason: 'stop_sequence', stop_sequence: sequence }),
  refusal: (category: string | null = 'general_harms', explanation: string | null = 'The request was declined.'): FakeMessageReply => ({
    kind: 'message',
    content: [],
    stop_reason: 'refusal',
    stop_details: { type: 'refusal', category, explanation },
  }),
  contextWindowExceeded: (partialText = ''): FakeMessageReply => ({
    kind: 'message',
    content: partialText ? [textBlock(partialText)] : [],
    stop_reason: 'model_context_window_exceeded',
  }),
};

export const apiError = {
  /** 429 rate_limit_error with a `retry-after` header (seconds). */
  rateLimited: (retryAfterSeconds = 1): FakeErrorReply => ({
    kind: 'error',
    status: 429,
    errorType: 'rate_limit_error',
    message: 'This request would exceed the rate limit for your organization of 50 requests per minute. Please retry after the time given in the retry-after header.',
    headers: { 'retry-after': String(retryAfterSeconds) },
  }),
  /** 529 overloaded_error, as the API returns when it is overloaded. */
  overloaded: (): FakeErrorReply => ({ kind: 'error', status: 529, errorType: 'overloaded_error', message: 'Overloaded' }),
  invalidRequest: (message: string): FakeErrorReply => ({ kind: 'error', status: 400, errorType: 'invalid_request_error', message }),
};

/* ---------------------------------------------------------------------------------------------- validation */

const REQUEST_BLOCK_TYPES = new Set([
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
const SERVER_RESULT_TYPES = new Set([...REQUEST_BLOCK_TYPES].filter((t) => t.endsWith('_tool_result') && t !== 'tool_result'));
const SERVER_TOOL_TYPE = /^(web_search|web_fetch|code_execution|bash|text_editor|memory|tool_search_tool_(bm25|regex))_\d{8}$|^tool_search_tool_(bm25|regex)$/;

const blocksOf = (content: Json): Json[] => (typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : []);

function countCacheControl(body: Json): number {
  let n = 0;
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

/** Returns the API's 400 message for an invalid request, or undefined when it is valid. */
export function validateMessagesRequest(body: Json, opts: { strictAlternation: boolean }): string | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'Request body must be a JSON object';
  if (typeof body.model !== 'string' || !body.model) return 'model: Field required';
  if (body.max_tokens === undefined) return 'max_tokens: Field required';
  if (!Number.isInteger(body.max_tokens) || body.max_tokens < 0) return 'max_tokens: Input should be a valid integer greater than or equal to 0';
  if (body.stream) return 'fake Messages API: streaming is not supported by this fake';
  if (body.system !== undefined && typeof body.system !== 'string') {
    if (!Array.isArray(body.system) || body.system.some((b: Json) => b?.type !== 'text' || typeof b.text !== 'string')) {
      return 'system: Input should be a valid string or a list of text blocks';
    }
  }
  if (body.stop_sequences !== undefined && (!Array.isArray(body.stop_sequences) || body.stop_sequences.some((s: Json) => typeof s !== 'string'))) {
    return 'stop_sequences: Input should be a valid list of strings';
  }
  const messages = body.messages;
  if (!Array.isArray(messages)) return 'messages: Field required';
  if (messages.length === 0) return 'messages: at least one message is required';

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
  }
  const serverToolNames = new Set(tools.filter((t) => t.type && t.type !== 'custom').map((t) => t.name));

  // Roles, blocks, tool pairing.
  let usesTools = false;
  for (const [i, m] of messages.entries()) {
    if (m?.role !== 'user' && m?.role !== 'assistant') return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    if (i === 0 && m.role !== 'user') return 'messages: first message must use the "user" role';
    if (opts.strictAlternation && i > 0 && messages[i - 1].role === m.role) {
      return `messages: roles must alternate between "user" and "assistant", but found multiple "${m.role}" roles in a row`;
    }
    if (typeof m.content !== 'string' && !Array.isArray(m.content)) return `messages.${i}.content: Input should be a valid string or list`;
    const blocks = blocksOf(m.content);
    if (Array.isArray(m.content) && blocks.length === 0 && !(m.role === 'assistant' && i === messages.length - 1)) {
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    }
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
      // Every server_tool_use is followed by its result in the same content (unless this is the final, paused message).
      const answered = new Set(blocks.filter((b) => SERVER_RESULT_TYPES.has(b.type)).map((b) => b.tool_use_id));
      const serverUses = blocks.filter((b) => b.type === 'server_tool_use');
      const orphans = serverUses.filter((b) => !answered.has(b.id)).map((b) => b.id);
      if (orphans.length && i !== messages.length - 1) {
        return `messages.${i}: \`server_tool_use\` ids were found without a corresponding result block in the same message: ${orphans.join(', ')}`;
      }
      const serverIds = new Set(serverUses.map((b) => b.id));
      const stray = blocks.filter((b) => SERVER_RESULT_TYPES.has(b.type) && !serverIds.has(b.tool_use_id)).map((b) => b.tool_use_id);
      if (stray.length) return `messages.${i}: result blocks reference unknown \`server_tool_use\` ids: ${stray.join(', ')}`;

      // Every tool_use is answered by a tool_result in the very next (user) message.
      const toolUseIds = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id as string);
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

/* ------------------------------------------------------------------------------------------------- server */

export interface FakeMessagesApiOptions {
  handler?: FakeHandler;
  /** Reject consecutive messages with the same role (the engine never sends them). Default true. */
  strictAlternation?: boolean;
}

export class FakeMessagesApi {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: Scripted[] = [];
  private readonly roleScripts = new Map<string, Scripted[] | FakeHandler>();
  private handler?: FakeHandler;
  private readonly cachedPrefixes = new Set<string>();
  private readonly strictAlternation: boolean;
  baseURL = '';

  private constructor(
    private readonly server: Server,
    opts: FakeMessagesApiOptions,
  ) {
    this.handler = opts.handler;
    this.strictAlternation = opts.strictAlternation ?? true;
  }

  static async start(opts: FakeMessagesApiOptions = {}): Promise<FakeMessagesApi> {
    let api!: FakeMessagesApi;
    const server = createServer((req, res) => void api.handle(req, res));
    api = new FakeMessagesApi(server, opts);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    api.baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return api;
  }

  /** An SDK client pointed at the fake. `maxRetries` defaults to 2 (the SDK's own default). */
  client(opts: { maxRetries?: number; timeout?: number } = {}): Anthropic {
    return new Anthropic({ apiKey: 'sk-ant-test-fake', baseURL: this.baseURL, maxRetries: opts.maxRetries ?? 2, timeout: opts.timeout ?? 10_000 });
  }

  /** Replies (or handlers) served in order to requests no role script claims. */
  enqueue(...replies: Scripted[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Answers every request that neither a role script nor the queue answers. */
  setHandler(handler: FakeHandler): this {
    this.handler = handler;
    return this;
  }

  /**
   * Scripts by the role in the system prompt: a handler, one reply (served every time), or a queue of replies/handlers
   * (served in order, the last one repeating). Handy for whole-run tests that cannot predict request order.
   */
  scriptByRole(script: Record<string, Scripted | Scripted[]>): this {
    for (const [role, s] of Object.entries(script)) {
      this.roleScripts.set(role, Array.isArray(s) ? [...s] : typeof s === 'function' ? s : [s]);
    }
    return this;
  }

  /** Requests that passed validation and got a message back. */
  get accepted(): RecordedRequest[] {
    return this.requests.filter((r) => r.status === 200);
  }
  get rejected(): RecordedRequest[] {
    return this.requests.filter((r) => r.status === 400);
  }

  reset(): void {
    this.requests.length = 0;
    this.queue.length = 0;
    this.roleScripts.clear();
    this.cachedPrefixes.clear();
    this.handler = undefined;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections?.();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private pick(req: FakeRequest): Scripted | undefined {
    const byRole = req.role ? this.roleScripts.get(req.role) : undefined;
    if (typeof byRole === 'function') return byRole;
    if (byRole && byRole.length) return byRole.length > 1 ? byRole.shift() : byRole[0];
    if (this.queue.length) return this.queue.shift();
    return this.handler;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '').split('?')[0]!;
    const rec: RecordedRequest = { index: this.requests.length, method: req.method ?? '', path, headers: req.headers, raw, body: undefined, role: undefined, status: 0 };
    this.requests.push(rec);
    const requestId = `req_fake${String(rec.index).padStart(4, '0')}`;

    const sendError = (status: number, type: string, message: string, headers: Record<string, string> = {}): void => {
      rec.status = status;
      if (status === 400) rec.validationError = message;
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': requestId, ...headers });
      res.end(JSON.stringify({ type: 'error', error: { type, message }, request_id: requestId }));
    };

    if (req.method !== 'POST' || path !== '/v1/messages') return sendError(404, 'not_found_error', `Not found: ${req.method} ${path}`);
    if (!req.headers['x-api-key'] && !req.headers['authorization']) return sendError(401, 'authentication_error', 'x-api-key header is required');
    if (!req.headers['anthropic-version']) return sendError(400, 'invalid_request_error', 'anthropic-version: header is required');
    try {
      rec.body = JSON.parse(raw);
    } catch {
      return sendError(400, 'invalid_request_error', 'There was an issue with your request body: it is not valid JSON');
    }
    const body = rec.body;
    const systemText = typeof body?.system === 'string' ? body.system : Array.isArray(body?.system) ? body.system.map((b: Json) => b?.text ?? '').join('\n') : '';
    rec.role = /Orrery role: ([a-z-]+)\./.exec(systemText)?.[1];
    const invalid = validateMessagesRequest(body, { strictAlternation: this.strictAlternation });
    if (invalid) return sendError(400, 'invalid_request_error', invalid);

    const messages: Json[] = body.messages;
    const last = messages[messages.length - 1];
    const lastUser = [...messages].reverse().find((m) => m.role === 'user');
    const view: FakeRequest = {
      index: rec.index,
      body,
      role: rec.role,
      system: systemText,
      messages,
      tools: body.tools ?? [],
      toolResults: last?.role === 'user' ? blocksOf(last.content).filter((b) => b.type === 'tool_result') : [],
      lastUserText: lastUser ? blocksOf(lastUser.content).filter((b) => b.type === 'text').map((b) => b.text).join('\n') : '',
      outputSchema: body.output_config?.format?.schema,
    };
    const scripted = this.pick(view);
    if (!scripted) return sendError(400, 'invalid_request_error', `fake Messages API: no scripted reply for request #${rec.index} (role ${rec.role ?? 'unknown'})`);
    let out: FakeReply;
    try {
      out = typeof scripted === 'function' ? await scripted(view) : scripted;
    } catch (err) {
      return sendError(500, 'api_error', `fake Messages API handler threw: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (out.kind === 'error') return sendError(out.status, out.errorType, out.message, out.headers);
    if (out.requireOutputFormat && !view.outputSchema) {
      return sendError(400, 'invalid_request_error', 'fake Messages API: a structured-output reply was scripted but the request has no output_config.format schema');
    }
    if (out.stop_reason === 'stop_sequence' && !(body.stop_sequences ?? []).includes(out.stop_sequence)) {
      return sendError(400, 'invalid_request_error', `fake Messages API: stop_sequence "${out.stop_sequence}" was scripted but the request did not set it`);
    }

    // Simulated usage: a cached prefix (system + tools with cache_control) is written once, then read.
    const prefix = JSON.stringify([body.system, body.tools ?? []]);
    const cacheable = countCacheControl({ system: body.system, tools: body.tools }) > 0;
    const prefixTokens = Math.ceil(prefix.length / 4);
    const cacheHit = cacheable && this.cachedPrefixes.has(prefix);
    if (cacheable) this.cachedPrefixes.add(prefix);
    const usage = {
      input_tokens: Math.ceil(JSON.stringify(messages).length / 4) + (cacheable ? 0 : prefixTokens),
      output_tokens: Math.max(1, Math.ceil(JSON.stringify(out.content).length / 4)),
      cache_creation_input_tokens: cacheable && !cacheHit ? prefixTokens : 0,
      cache_read_input_tokens: cacheHit ? prefixTokens : 0,
      cache_creation: null,
      inference_geo: null,
      server_tool_use: null,
      service_tier: 'standard',
      ...out.usage,
    };
    rec.status = 200;
    rec.stopReason = out.stop_reason;
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': requestId });
    res.end(
      JSON.stringify({
        id: nextId('msg'),
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: out.content,
        stop_reason: out.stop_reason,
        stop_sequence: out.stop_sequence ?? null,
        stop_details: out.stop_details ?? null,
        usage,
        container: null,
        diagnostics: null,
      }),
    );
  }
}

/** The Orrery role of a recorded request (from its system prompt). */
export const roleOf = (r: RecordedRequest): string | undefined => r.role;
