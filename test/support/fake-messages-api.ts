/**
 * A faithful stand-in for the Anthropic Messages API (`POST /v1/messages`) for tests: a real HTTP server the real SDK
 * talks to through `baseURL`. It refuses what the API refuses (400 `invalid_request_error`, see
 * fake-messages-validation.ts), counts usage as the API does (prompt caching in fake-prompt-cache.ts, server tool
 * requests billed per executed search), streams when asked (fake-messages-stream.ts), runs deferred server tool calls
 * when their turn's tool results arrive, hands out containers, sends rate-limit headers, and answers from a script:
 * queues per role or global, or a handler function of the request.
 *
 *   const api = await FakeMessagesApi.start();
 *   api.scriptByRole({ planner: reply.json({...}), researcher: [reply.toolUse([...]), reply.text('notes')] });
 *   const client = api.client();            // Anthropic SDK client pointed at the fake
 *   ...
 *   await api.close();
 *
 * Roles come from the `Orrery role: <role>.` line the engine puts at the top of every system prompt.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { FakeOutage } from './fake-outage';
import { FakePromptCache, tokensOf } from './fake-prompt-cache';
import { messageEvents, PING } from './fake-messages-stream';
import { blocksOf, combineTurns, orphanServerUses, validateMessagesRequest } from './fake-messages-validation';
import { effortOf, invalidThinkingSignature, refusedThinkingSettings, signature, THINKING_TOKENS, thinksByDefault } from './fake-thinking';
import { citedText, fakePage, fakePageAge, invalidTaskBudget, runWebFetches, type FakePage } from './fake-web-tools';

export { validateMessagesRequest } from './fake-messages-validation';
export { minCacheableTokens } from './fake-prompt-cache';
export { CITED_TEXT_MAX, fakePage, fakePageAge, type FakePage } from './fake-web-tools';

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
  /** The reply ran code in a container: the response names it (the request's container, else a new one). */
  container?: boolean;
  /** How long the server works on the turn before the reply (server-side searches, code). */
  durationMs?: number;
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
  /** The messages, consecutive turns of one role combined as the API combines them. */
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
  /** When the request arrived (ms since the epoch). */
  at: number;
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
  streamed?: boolean;
  /** The usage the fake billed (also when the connection was cut before the answer). */
  usage?: Json;
  /** Queries of the web searches this request ran (and billed). */
  webSearches?: string[];
  /** The connection was cut before the answer went out (an idle non-streaming request). */
  cut?: boolean;
}

/* ------------------------------------------------------------------------------------------------ builders */

let idCounter = 0;
const nextId = (prefix: string): string => `${prefix}_fake${String(++idCounter).padStart(4, '0')}${randomUUID().slice(0, 8)}`;

export interface WebResult {
  url: string;
  title: string;
  /** The result's `page_age`; default fakePageAge(url). */
  page_age?: string | null;
}
export interface Citation {
  url: string;
  title: string;
  cited_text: string;
}

/**
 * A search result's `encrypted_content`: the page as the model reads it, opaque to the client. The API bills it as input
 * when it is sent back ("search results … are counted as input tokens": web search tool docs), so it is sized like a
 * page excerpt, not like a URL.
 */
const encryptedPage = (url: string): string => {
  let out = '';
  for (let i = 0; out.length < 1600; i++) out += createHash('sha256').update(`${url}#${i}`).digest('base64');
  return `enc_${out.slice(0, 1600)}`;
};

const webSearchResult = (id: string, results: WebResult[]): Json => ({
  type: 'web_search_tool_result',
  tool_use_id: id,
  caller: { type: 'direct' },
  content: results.map((r) => ({ type: 'web_search_result', url: r.url, title: r.title, encrypted_content: encryptedPage(r.url), page_age: r.page_age === undefined ? fakePageAge(r.url) : r.page_age })),
});

/** A `server_tool_use` (web_search) and its `web_search_tool_result`, as the API returns them. */
export function webSearchBlocks(query: string, results: WebResult[]): Json[] {
  const id = nextId('srvtoolu');
  return [{ type: 'server_tool_use', id, name: 'web_search', input: { query }, caller: { type: 'direct' } }, webSearchResult(id, results)];
}

/** A web search the API defers because the same turn calls a client tool: no result until the tool results return. */
export function deferredWebSearch(query: string): Json {
  return { type: 'server_tool_use', id: nextId('srvtoolu'), name: 'web_search', input: { query }, caller: { type: 'direct' } };
}

export function textBlock(text: string, citations?: Citation[]): Json {
  return {
    type: 'text',
    text,
    citations: citations?.length
      ? citations.map((c) => ({ type: 'web_search_result_location', url: c.url, title: c.title, cited_text: citedText(c.cited_text), encrypted_index: `idx_${c.url.length}` }))
      : null,
  };
}

/** Results the fake gives a deferred web search when it finally runs: three pages derived from the query. */
export const defaultWebResults = (query: string): WebResult[] => {
  const slug = query.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'q';
  return [1, 2, 3].map((n) => ({ url: `https://example.org/${slug}/${n}`, title: `${query} (${n})` }));
};

export const reply = {
  /** end_turn with plain text (optionally with web_search_result_location citations). */
  text: (text: string, citations?: Citation[]): FakeMessageReply => ({ kind: 'message', content: [textBlock(text, citations)], stop_reason: 'end_turn' }),
  /** end_turn with arbitrary blocks. */
  endTurn: (content: Json[]): FakeMessageReply => ({ kind: 'message', content, stop_reason: 'end_turn' }),
  /**
   * end_turn with no content: what the model answers when a user turn puts text after tool results ("Empty responses
   * with end_turn": stop reasons docs).
   */
  empty: (): FakeMessageReply => ({ kind: 'message', content: [], stop_reason: 'end_turn', usage: { output_tokens: 3 } }),
  /**
   * A structured-output answer: end_turn with the JSON text. The request must carry output_config.format. The value is
   * not checked against the schema's numeric bounds: structured outputs do not enforce `minimum`/`maximum` (the SDK's
   * zodOutputFormat moves them into the description, lib/transform-json-schema.js), so a reply may hold 1.2 where the
   * schema says at most 1, as the models' replies can.
   */
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
  /**
   * Web fetches of the given URLs (web fetch tool docs): the fake runs them, so each `server_tool_use` meets its
   * `web_fetch_tool_result` (the page as a text document, or the real tool's error), then pause_turn or the text.
   */
  fetch: (urls: string[], text?: string): FakeMessageReply => ({
    kind: 'message',
    content: [...urls.map((url) => ({ type: 'server_tool_use', id: nextId('srvtoolu'), name: 'web_fetch', input: { url }, caller: { type: 'direct' } })), ...(text ? [textBlock(text)] : [])],
    stop_reason: text ? 'end_turn' : 'pause_turn',
  }),
  /** pause_turn with a server_tool_use still running (no result yet): must be sent back as the last message. */
  pauseTurnPending: (query: string): FakeMessageReply => ({
    kind: 'message',
    content: [{ type: 'server_tool_use', id: nextId('srvtoolu'), name: 'web_search', input: { query }, caller: { type: 'direct' } }],
    stop_reason: 'pause_turn',
  }),
  /**
   * Web results filtered by code (web_search_20260318 with `allowed_callers` naming code execution): the model runs
   * code in a container, the code fetches a page, and prints the part that matters. `pending` leaves the code running
   * (pause_turn), so the follow-up must name the container.
   */
  codeExecution: (o: { url: string; title: string; pageText: string; stdout: string; pending?: boolean; text?: string }): FakeMessageReply => {
    const exec = nextId('srvtoolu');
    const fetch = nextId('srvtoolu');
    const caller = { type: 'code_execution_20260120', tool_id: exec };
    const content: Json[] = [
      { type: 'server_tool_use', id: exec, name: 'code_execution', input: { code: `page = await web_fetch(url="${o.url}")\nprint(extract(page))` }, caller: { type: 'direct' } },
      { type: 'server_tool_use', id: fetch, name: 'web_fetch', input: { url: o.url }, caller },
      {
        type: 'web_fetch_tool_result',
        tool_use_id: fetch,
        caller,
        content: {
          type: 'web_fetch_result',
          url: o.url,
          retrieved_at: null,
          content: { type: 'document', title: o.title, citations: null, source: { type: 'text', media_type: 'text/plain', data: o.pageText } },
        },
      },
    ];
    if (!o.pending) {
      content.push({ type: 'code_execution_tool_result', tool_use_id: exec, content: { type: 'code_execution_result', stdout: o.stdout, stderr: '', return_code: 0, content: [] } });
      if (o.text) content.push(textBlock(o.text));
    }
    return { kind: 'message', content, stop_reason: o.pending ? 'pause_turn' : 'end_turn', container: true };
  },
  /** The rest of a paused code execution: its result, then text. */
  codeExecutionDone: (execId: string, stdout: string, text: string): FakeMessageReply => ({
    kind: 'message',
    content: [{ type: 'code_execution_tool_result', tool_use_id: execId, content: { type: 'code_execution_result', stdout, stderr: '', return_code: 0, content: [] } }, textBlock(text)],
    stop_reason: 'end_turn',
    container: true,
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

/* ------------------------------------------------------------------------------------------------- server */

export interface FakeMessagesApiOptions {
  handler?: FakeHandler;
  /** Refuse consecutive messages with the same role instead of combining them as the API does. Default false. */
  strictAlternation?: boolean;
  /** Input tokens a request may hold ("prompt is too long" above). Default 1,000,000 (the current models' window). */
  contextWindow?: number;
  /**
   * A non-streaming response still being worked on after this long has its connection cut, as proxies and load
   * balancers cut idle connections (the reason the API asks for streaming on long requests). Default: never.
   */
  idleCutMs?: number;
  /** Pings on a stream while the server works. Default 250 ms. */
  pingMs?: number;
  /** Results of a deferred web search when it runs. */
  webResults?: (query: string) => WebResult[];
  /** The page web fetch returns for a URL (undefined: `url_not_accessible`). Default fakePage. */
  pages?: (url: string) => FakePage | undefined;
  /** The organisation's request limit per minute, reported in `anthropic-ratelimit-requests-*`. Default 4000. */
  requestsPerMinute?: number;
  /**
   * Replies think as the default models do (fake-thinking.ts). Default true; false only for tests of the fake's own
   * reply shapes, which script exact content. The refusals of thinking settings apply either way.
   */
  thinking?: boolean;
  /**
   * `local`: behave like a local server that speaks the Messages API (Ollama 0.14+, llama.cpp's server, vLLM), which
   * implement a subset: no server tools, no `output_config`, no prompt caching (docs.ollama.com/api/anthropic-compatibility,
   * "Not supported"; server tools and structured output are not in its "Supported request fields"). Default `anthropic`.
   */
  server?: 'anthropic' | 'local';
  /**
   * Which local server `local` answers as on the routes such servers have besides the Messages API, that profile
   * detection probes (detect-server.ts): Ollama's `GET /api/version` and `/api/tags` (docs.ollama.com/api-reference),
   * llama.cpp's `GET /props` and `/health` (its server README), vLLM's `GET /version` and OpenAI-style `GET /v1/models`
   * (`owned_by: "vllm"`). Default `ollama`. Anthropic's API answers none of them (404).
   */
  localServer?: 'ollama' | 'llama.cpp' | 'vllm';
}

/** A local server's answers to GET routes other than the Messages API, as each server shapes them. */
const LOCAL_SERVER_ROUTES: Record<NonNullable<FakeMessagesApiOptions['localServer']>, Record<string, unknown>> = {
  ollama: { '/api/version': { version: '0.14.1' }, '/api/tags': { models: [{ name: 'qwen3:8b', model: 'qwen3:8b', size: 5225388164, digest: 'sha256:0', details: { format: 'gguf', family: 'qwen3' } }] } },
  'llama.cpp': {
    '/props': { default_generation_settings: { n_ctx: 8192, params: { temperature: 0.8 } }, total_slots: 1, model_path: '/models/qwen3-8b.gguf', chat_template: '' },
    '/health': { status: 'ok' },
  },
  vllm: { '/version': { version: '0.11.0' }, '/v1/models': { object: 'list', data: [{ id: 'qwen3:8b', object: 'model', created: 0, owned_by: 'vllm' }] } },
};

/**
 * What a local Messages-API server refuses, with an error shaped as it answers (400, invalid_request_error). Ollama
 * documents `cache_control` as not supported; it is refused here too so a test sees any breakpoint that slips through.
 */
export function localServerRefusal(body: Json): string | undefined {
  const serverTool = (body?.tools ?? []).find((t: Json) => typeof t?.type === 'string' && t.type !== 'custom');
  if (serverTool) return `tools: server tool "${serverTool.type}" is not supported; only tools with a name and input_schema are`;
  if (body?.output_config !== undefined) return 'output_config: unknown field (structured output and effort are not supported)';
  if (JSON.stringify(body ?? {}).includes('"cache_control"')) return 'cache_control: prompt caching is not supported';
  if (body?.context_management !== undefined) return 'context_management: unknown field';
  return undefined;
}

const CONTAINER_TTL_MS = 30 * 60_000;

export class FakeMessagesApi {
  readonly requests: RecordedRequest[] = [];
  /** GET requests (profile detection's probes), kept apart from the API requests the tests inspect: path and status. */
  readonly probes: { path: string; status: number }[] = [];
  private readonly queue: Scripted[] = [];
  private readonly roleScripts = new Map<string, Scripted[] | FakeHandler>();
  private handler?: FakeHandler;
  readonly cache = new FakePromptCache();
  private readonly containers = new Map<string, number>();
  private readonly opts: Required<Omit<FakeMessagesApiOptions, 'handler'>>;
  private rateLimitedUntil = 0;
  private rateLimitRetryAfter = 1;
  /** A scripted provider outage (fake-outage.ts). */
  readonly outage = new FakeOutage();
  baseURL = '';

  private constructor(
    private readonly server: Server,
    opts: FakeMessagesApiOptions,
  ) {
    this.handler = opts.handler;
    this.opts = {
      strictAlternation: opts.strictAlternation ?? false,
      contextWindow: opts.contextWindow ?? 1_000_000,
      idleCutMs: opts.idleCutMs ?? 0,
      pingMs: opts.pingMs ?? 250,
      webResults: opts.webResults ?? defaultWebResults,
      pages: opts.pages ?? fakePage,
      requestsPerMinute: opts.requestsPerMinute ?? 4000,
      thinking: opts.thinking ?? true,
      server: opts.server ?? 'anthropic',
      localServer: opts.localServer ?? 'ollama',
    };
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

  /** Every request gets 429 `rate_limit_error` with `retry-after: retryAfterSeconds` for the next `ms`. */
  rateLimitFor(ms: number, retryAfterSeconds: number): this {
    this.rateLimitedUntil = Date.now() + ms;
    this.rateLimitRetryAfter = retryAfterSeconds;
    return this;
  }

  /** Requests that passed validation and got a message back. */
  get accepted(): RecordedRequest[] {
    return this.requests.filter((r) => r.status === 200 && r.path === '/v1/messages');
  }
  /** Token counts asked for (`/v1/messages/count_tokens`). */
  get counted(): RecordedRequest[] {
    return this.requests.filter((r) => r.path === '/v1/messages/count_tokens');
  }
  get rejected(): RecordedRequest[] {
    return this.requests.filter((r) => r.status === 400);
  }
  /** Every web search the fake ran and billed, with the request that ran it. */
  get billedSearches(): Array<{ request: RecordedRequest; query: string }> {
    return this.requests.flatMap((r) => (r.webSearches ?? []).map((query) => ({ request: r, query })));
  }

  reset(): void {
    this.requests.length = 0;
    this.queue.length = 0;
    this.roleScripts.clear();
    this.cache.clear();
    this.containers.clear();
    this.rateLimitedUntil = 0;
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

  /** `anthropic-ratelimit-*` headers (rate limits docs, "response headers"), from a simple per-minute window. */
  private rateLimitHeaders(now: number, limited: boolean): Record<string, string> {
    const minute = Math.floor(now / 60_000);
    const used = this.requests.filter((r) => Math.floor(r.at / 60_000) === minute).length;
    const reset = new Date((minute + 1) * 60_000).toISOString();
    const limit = this.opts.requestsPerMinute;
    return {
      'anthropic-ratelimit-requests-limit': String(limit),
      'anthropic-ratelimit-requests-remaining': String(limited ? 0 : Math.max(0, limit - used)),
      'anthropic-ratelimit-requests-reset': reset,
      'anthropic-ratelimit-input-tokens-limit': '2000000',
      'anthropic-ratelimit-input-tokens-remaining': limited ? '0' : '1990000',
      'anthropic-ratelimit-input-tokens-reset': reset,
      'anthropic-ratelimit-output-tokens-limit': '400000',
      'anthropic-ratelimit-output-tokens-remaining': limited ? '0' : '399000',
      'anthropic-ratelimit-output-tokens-reset': reset,
    };
  }

  private liveContainers(now: number): Set<string> {
    return new Set([...this.containers].filter(([, exp]) => exp > now).map(([id]) => id));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '').split('?')[0]!;
    if (req.method === 'GET') {
      const route = this.opts.server === 'local' ? LOCAL_SERVER_ROUTES[this.opts.localServer][path] : undefined;
      this.probes.push({ path, status: route ? 200 : 404 });
      res.writeHead(route ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(route ?? { type: 'error', error: { type: 'not_found_error', message: `Not found: GET ${path}` } }));
      return;
    }
    const now = Date.now();
    const rec: RecordedRequest = { index: this.requests.length, at: now, method: req.method ?? '', path, headers: req.headers, raw, body: undefined, role: undefined, status: 0 };
    this.requests.push(rec);
    const requestId = `req_fake${String(rec.index).padStart(4, '0')}`;

    const sendError = (status: number, type: string, message: string, headers: Record<string, string> = {}): void => {
      rec.status = status;
      if (status === 400) rec.validationError = message;
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': requestId, ...headers });
      res.end(JSON.stringify({ type: 'error', error: { type, message }, request_id: requestId }));
    };

    if (req.method === 'POST' && path === '/v1/messages/count_tokens') return this.countTokens(raw, rec, res);
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
    if (this.outage.intercept(res, requestId, (status) => (rec.status = status), rec.role)) return;
    if (now < this.rateLimitedUntil) {
      const e = apiError.rateLimited(this.rateLimitRetryAfter);
      return sendError(429, e.errorType, e.message, { ...e.headers, ...this.rateLimitHeaders(now, true) });
    }
    const invalid =
      (this.opts.server === 'local' ? localServerRefusal(body) : undefined) ??
      validateMessagesRequest(body, { strictAlternation: this.opts.strictAlternation, containers: this.liveContainers(now) }) ??
      refusedThinkingSettings(body) ??
      invalidThinkingSignature(String(body.model), combineTurns(body.messages));
    if (invalid) return sendError(400, 'invalid_request_error', invalid);
    // Context editing is in beta behind its header (context editing docs); the API applies it server-side, to what
    // the model reads, while the client's history stays as sent.
    if (body.context_management !== undefined && !String(req.headers['anthropic-beta'] ?? '').split(',').map((b) => b.trim()).includes('context-management-2025-06-27')) {
      return sendError(400, 'invalid_request_error', 'context_management: Extra inputs are not permitted (this feature needs the context-management-2025-06-27 beta header)');
    }
    const badFallbacks = invalidFallbacks(body, String(req.headers['anthropic-beta'] ?? ''));
    if (badFallbacks) return sendError(400, 'invalid_request_error', badFallbacks);
    const badTaskBudget = invalidTaskBudget(body, req.headers['anthropic-beta']);
    if (badTaskBudget) return sendError(400, 'invalid_request_error', badTaskBudget);
    const seen = clearedToolResults(body);
    const inputTokens = tokensOf([seen.tools ?? [], seen.system ?? '', seen.messages]);
    if (inputTokens > this.opts.contextWindow) {
      return sendError(400, 'invalid_request_error', `prompt is too long: ${inputTokens} tokens > ${this.opts.contextWindow} maximum`);
    }

    const messages: Json[] = combineTurns(body.messages);
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
    // Server-side fallback (refusals-and-fallback docs, "Server-side fallback"; BetaFallbacksParam): a declined request
    // is tried on each `fallbacks` model in order, and each hop where a model declined opens with a `fallback` block
    // (BetaFallbackBlock); a turn a fallback model served carries a `fallback_message` entry in `usage.iterations`.
    const hops: Json[] = [];
    let served: Json = body;
    for (const fb of Array.isArray(body.fallbacks) ? body.fallbacks : []) {
      if (out.kind !== 'message' || out.stop_reason !== 'refusal') break;
      const next: Json = { ...body, model: fb.model };
      const handler = this.pick({ ...view, body: next });
      if (!handler) break;
      const declined = out;
      try {
        out = typeof handler === 'function' ? await handler({ ...view, body: next }) : handler;
      } catch (err) {
        return sendError(500, 'api_error', `fake Messages API handler threw: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (out.kind === 'error') return sendError(out.status, out.errorType, out.message, out.headers);
      hops.push({ type: 'fallback', from: { model: String(served.model) }, to: { model: String(fb.model) }, trigger: { type: 'refusal', category: declined.stop_details?.category ?? null } });
      served = next;
    }
    // A local server has no output_config: the schema travels in the prompt, and the model's JSON is checked by the engine.
    if (out.requireOutputFormat && !view.outputSchema && this.opts.server !== 'local') {
      return sendError(400, 'invalid_request_error', 'fake Messages API: a structured-output reply was scripted but the request has no output_config.format schema');
    }
    if (out.stop_reason === 'stop_sequence' && !(body.stop_sequences ?? []).includes(out.stop_sequence)) {
      return sendError(400, 'invalid_request_error', `fake Messages API: stop_sequence "${out.stop_sequence}" was scripted but the request did not set it`);
    }
    if (out.content.some((b) => b.type === 'server_tool_use' && !(body.tools ?? []).some((t: Json) => t.name === b.name))) {
      return sendError(400, 'invalid_request_error', 'fake Messages API: a server tool call was scripted for a tool the request does not define');
    }
    // `tool_choice: {type: "none"}` "prevents Claude from using any tools" (tool use docs, "Forcing tool use").
    if (body.tool_choice?.type === 'none' && out.content.some((b) => b.type === 'tool_use' || b.type === 'server_tool_use')) {
      return sendError(400, 'invalid_request_error', 'fake Messages API: a tool call was scripted for a request with tool_choice none');
    }
    // Web fetches run server-side within the turn: each call meets its result (fake-web-tools.ts).
    out = { ...out, content: runWebFetches(out.content, messages, body.tools ?? [], this.opts.pages) };
    // Code may call a tool only where its `allowed_callers` names that code execution version.
    const calledFromCode = out.content.filter((b) => (b.type === 'server_tool_use' || b.type === 'tool_use') && b.caller?.type?.startsWith('code_execution'));
    const callable = (b: Json) => (body.tools ?? []).find((t: Json) => t.name === b.name)?.allowed_callers?.includes(b.caller.type) ?? true;
    if (calledFromCode.some((b) => !callable(b))) {
      return sendError(400, 'invalid_request_error', "fake Messages API: a call from code was scripted for a tool whose allowed_callers exclude code execution");
    }

    // A deferred server call runs now that its turn's tool results are here: its result opens the reply.
    const deferred = this.deferredCalls(messages);
    const resumed: Json[] = deferred.map((b) => webSearchResult(b.id, this.opts.webResults(String(b.input?.query ?? ''))));
    let content: Json[] = [...resumed, ...out.content];
    let stopReason: StopReason = out.stop_reason;
    const thought = this.think(served, messages, resumed, out);
    if (thought) {
      content = thought.content;
      stopReason = thought.stopReason;
    }
    content = [...hops, ...content];
    const executed = [
      ...deferred.map((b) => String(b.input?.query ?? '')),
      ...this.executedSearches(out.content),
    ];
    rec.webSearches = executed;
    const fetches = out.content.filter((b) => b.type === 'web_fetch_tool_result').length;

    // Containers: a reply that ran code names one; the request's own, while it lives, else a new one.
    let container: Json = null;
    if (out.container) {
      const asked = typeof body.container === 'string' ? body.container : body.container?.id;
      const id = asked && this.liveContainers(now).has(asked) ? asked : nextId('container');
      const expires = now + CONTAINER_TTL_MS;
      this.containers.set(id, expires);
      container = { id, expires_at: new Date(expires).toISOString(), skills: null };
    }

    const cached = this.cache.account(seen, now);
    const usage = {
      input_tokens: cached.total - cached.read - cached.written,
      output_tokens: thought ? thought.outputTokens : Math.max(1, Math.ceil(JSON.stringify(out.content).length / 4)),
      cache_creation_input_tokens: cached.written,
      cache_read_input_tokens: cached.read,
      cache_creation: { ephemeral_5m_input_tokens: cached.written, ephemeral_1h_input_tokens: 0 },
      inference_geo: null,
      output_tokens_details: thought ? { thinking_tokens: thought.thinkingTokens } : null,
      server_tool_use: executed.length || fetches ? { web_search_requests: executed.length, web_fetch_requests: fetches } : null,
      service_tier: 'standard',
      speed: null,
      ...(hops.length ? { iterations: [{ type: 'fallback_message', model: String(served.model), input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, cache_creation: null }] } : {}),
      ...out.usage,
    };
    rec.usage = usage;
    rec.stopReason = stopReason;
    const message = {
      id: nextId('msg'),
      type: 'message',
      role: 'assistant',
      model: body.model,
      content,
      stop_reason: stopReason,
      stop_sequence: out.stop_sequence ?? null,
      stop_details: out.stop_details ?? null,
      usage,
      container,
      diagnostics: null,
    };
    const headers = { 'request-id': requestId, ...this.rateLimitHeaders(now, false) };
    const duration = out.durationMs ?? 0;

    if (body.stream) {
      rec.streamed = true;
      rec.status = 200;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
      const { start, rest } = messageEvents(message);
      res.write(start);
      if (duration > 0) {
        const ping = setInterval(() => res.write(PING), this.opts.pingMs);
        await new Promise((r) => setTimeout(r, duration));
        clearInterval(ping);
      }
      for (const e of rest) res.write(e);
      res.end();
      return;
    }
    if (this.opts.idleCutMs > 0 && duration > this.opts.idleCutMs) {
      // The server works on (and bills) the turn, but the idle connection is cut before the answer.
      await new Promise((r) => setTimeout(r, this.opts.idleCutMs));
      rec.status = 0;
      rec.cut = true;
      res.socket?.destroy();
      return;
    }
    if (duration > 0) await new Promise((r) => setTimeout(r, duration));
    rec.status = 200;
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(message));
  }

  /**
   * Thinking as the default models do it (fake-thinking.ts): a thinking block opens the reply, signed over the
   * conversation before it; text a tool turn carries moves into it (shown only at `display: "summarized"`); its tokens
   * are output tokens, so a reply whose thinking and answer do not fit `max_tokens` stops there with the answer cut.
   * Replies with no content (an empty end_turn, a refusal) and scripted thinking are left as they are.
   */
  private think(body: Json, messages: Json[], resumed: Json[], out: FakeMessageReply): { content: Json[]; stopReason: StopReason; outputTokens: number; thinkingTokens: number } | undefined {
    const model = String(body.model);
    if (!this.opts.thinking || !thinksByDefault(model) || body.thinking?.type === 'disabled' || out.content.length === 0 || out.stop_reason === 'refusal') return undefined;
    if (out.content.some((b) => b.type === 'thinking' || b.type === 'redacted_thinking')) return undefined;
    const toolTurn = out.stop_reason === 'tool_use' || out.stop_reason === 'pause_turn';
    const betweenTools = toolTurn && /^claude-(opus-5-5|sonnet-5-5|fable-5-1|mythos-5-1)/.test(model);
    const moved = betweenTools ? out.content.filter((b) => b.type === 'text') : [];
    const answer = out.content.filter((b) => !moved.includes(b));
    const last = messages[messages.length - 1];
    const before = last?.role === 'assistant' ? messages.slice(0, -1) : messages;
    const turnSoFar = [...(last?.role === 'assistant' ? blocksOf(last.content) : []), ...resumed];
    const summarized = body.thinking?.display === 'summarized';
    const effort = effortOf(body);
    const thinkingTokens = THINKING_TOKENS[effort]!;
    const text = moved.map((b) => b.text).join('\n') || `Working out the ${effort}-effort answer.`;
    const block = { type: 'thinking', thinking: summarized ? text : '', signature: signature(model, before, turnSoFar) };
    const answerTokens = Math.max(1, Math.ceil(JSON.stringify(answer).length / 4));
    if (thinkingTokens + answerTokens > body.max_tokens) {
      return { content: [...resumed, block], stopReason: 'max_tokens', outputTokens: body.max_tokens, thinkingTokens: Math.min(thinkingTokens, body.max_tokens) };
    }
    return { content: [...resumed, block, ...answer], stopReason: out.stop_reason, outputTokens: thinkingTokens + answerTokens, thinkingTokens };
  }

  /**
   * `POST /v1/messages/count_tokens` (token counting docs; MessageTokensCount in the SDK): the prompt's input tokens,
   * counted as a request's are. Free and not a message: recorded with path and status, never in `accepted`.
   */
  private countTokens(raw: string, rec: RecordedRequest, res: ServerResponse): void {
    let body: Json;
    try {
      body = JSON.parse(raw);
    } catch {
      body = undefined;
    }
    rec.body = body;
    const ok = body && typeof body.model === 'string' && Array.isArray(body.messages) && body.messages.length > 0;
    rec.status = ok ? 200 : 400;
    res.writeHead(rec.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? { input_tokens: tokensOf([body.tools ?? [], body.system ?? '', body.messages]) } : { type: 'error', error: { type: 'invalid_request_error', message: 'model and messages are required' } }));
  }

  /** Server calls deferred in the turn before this request's tool results: they run in this request. */
  private deferredCalls(messages: Json[]): Json[] {
    const last = messages[messages.length - 1];
    const prev = messages[messages.length - 2];
    if (last?.role !== 'user' || prev?.role !== 'assistant') return [];
    const blocks = blocksOf(prev.content);
    if (!blocks.some((b) => b.type === 'tool_use')) return [];
    const ids = new Set(orphanServerUses(blocks));
    return blocks.filter((b) => ids.has(b.id) && b.name === 'web_search');
  }

  /** Web searches a reply ran: its web_search calls that came back with a result. */
  private executedSearches(content: Json[]): string[] {
    const answered = new Set(content.filter((b) => b.type === 'web_search_tool_result').map((b) => b.tool_use_id));
    return content.filter((b) => b.type === 'server_tool_use' && b.name === 'web_search' && answered.has(b.id)).map((b) => String(b.input?.query ?? ''));
  }
}

/**
 * The request as the model reads it after `clear_tool_uses_20250919` (context editing docs): once the prompt passes the
 * trigger, the oldest tool results are replaced by a placeholder, keeping the last `keep` tool uses.
 */
function clearedToolResults(body: Json): Json {
  const edit = (body.context_management?.edits ?? []).find((e: Json) => e?.type === 'clear_tool_uses_20250919');
  if (!edit) return body;
  const trigger = edit.trigger?.value ?? 100_000;
  if (tokensOf([body.tools ?? [], body.system ?? '', body.messages]) <= trigger) return body;
  const keep = edit.keep?.value ?? 3;
  const messages = structuredClone(body.messages) as Json[];
  const results = messages.flatMap((m) => (m.role === 'user' && Array.isArray(m.content) ? m.content.filter((b: Json) => b.type === 'tool_result') : []));
  for (const r of results.slice(0, Math.max(0, results.length - keep))) r.content = '[cleared]';
  return { ...body, messages };
}

/** The Orrery role of a recorded request (from its system prompt). */
export const roleOf = (r: RecordedRequest): string | undefined => r.role;

/** BetaFallbackParam's own keys: "Any other key is rejected at parse time". */
const FALLBACK_KEYS = new Set(['model', 'max_tokens', 'thinking', 'output_config', 'speed']);
const FALLBACK_BETAS = ['server-side-fallback-2026-06-01', 'server-side-fallback-2026-07-01'];

/** `fallbacks` is in beta behind its header (refusals-and-fallback docs), and each entry names a model. */
function invalidFallbacks(body: Json, betaHeader: string): string | undefined {
  if (body.fallbacks === undefined || body.fallbacks === null) return undefined;
  if (!betaHeader.split(',').map((b) => b.trim()).some((b) => FALLBACK_BETAS.includes(b))) {
    return 'fallbacks: Extra inputs are not permitted (this feature needs the server-side-fallback-2026-07-01 beta header)';
  }
  if (body.fallbacks === 'default') return undefined;
  if (!Array.isArray(body.fallbacks)) return 'fallbacks: Input should be a valid list or "default"';
  for (const [i, fb] of (body.fallbacks as Json[]).entries()) {
    if (typeof fb?.model !== 'string') return `fallbacks.${i}.model: Field required`;
    const extra = Object.keys(fb).find((k) => !FALLBACK_KEYS.has(k));
    if (extra) return `fallbacks.${i}.${extra}: Extra inputs are not permitted`;
  }
  return undefined;
}
