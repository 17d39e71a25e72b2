import type Anthropic from '@anthropic-ai/sdk';
import type {
  ContentBlock,
  ContentBlockParam,
  JSONOutputFormat,
  Message,
  MessageCreateParamsBase,
  MessageParam,
  ToolUnion,
} from '@anthropic-ai/sdk/resources/messages';
import type { BetaClearToolUses20250919Edit, BetaFallbackParam, BetaTokenTaskBudget } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { TokenUsage } from '@orrery/protocol';
import { AnthropicEngineError, toEngineError } from './errors';
import type { Effort } from './role-settings';
import { FREE_PRICES, type PriceTable } from './pricing';
import { LocalRequestGate, rateLimitHeaders, retryAfterMs, sleep, type RequestGate } from './request-gate';
import { usageOf } from './usage';
import { inModelCallSpan, recordModelResponse } from './model-call-span';
import { CLAUDE_PROFILE, type ServerProfile } from './server-profile';
import { datedSystem } from './prompts';

/**
 * Server-side tool-result clearing (context editing docs, build-with-claude/context-editing; the SDK's
 * BetaClearToolUses20250919Edit): once the prompt passes `triggerInputTokens`, the API clears the oldest tool results
 * from what the model reads, keeping the last `keepToolUses`, while the client keeps and sends the full, unmodified
 * history. In beta, behind the `context-management-2025-06-27` header.
 */
export interface ContextManagement {
  triggerInputTokens: number;
  keepToolUses: number;
  /** Clear at least this much when it clears, so the cache invalidation it causes is worth it (`clear_at_least`). */
  clearAtLeastTokens: number;
}
export const CONTEXT_MANAGEMENT_BETA = 'context-management-2025-06-27';
/**
 * Server-side fallback (refusals-and-fallback docs, "Server-side fallback"; the SDK's BetaFallbacksParam): a request
 * the model declines for policy reasons is retried inside the same call on the `fallbacks` models, in beta behind this
 * header. The response then opens the fallback model's part with a `fallback` block (BetaFallbackBlock).
 */
export const SERVER_SIDE_FALLBACK_BETA = 'server-side-fallback-2026-07-01';
/**
 * Task budgets (platform.claude.com/docs/en/build-with-claude/task-budgets): `output_config.task_budget` tells the model
 * how many tokens its whole agentic loop has, as a countdown it paces itself against; advisory (max_tokens stays the
 * hard cap), in beta behind this header, on the models the page lists (TASK_BUDGET_MODELS).
 */
export const TASK_BUDGETS_BETA = 'task-budgets-2026-03-13';

export interface SendParams {
  model: string;
  system: string;
  messages: MessageParam[];
  maxTokens: number;
  tools?: ToolUnion[];
  outputFormat?: JSONOutputFormat;
  /** `output_config.effort`: how hard the model thinks (effort docs); unset, the model's default. */
  effort?: Effort;
  /**
   * `thinking.display` (ThinkingConfigAdaptive): `summarized` returns the thinking text, which on the default models
   * also holds the text written between tool calls ("Text between tool calls", whats-new-opus-5-5); their default
   * `omitted` returns it empty. Ask for it only where the text is shown.
   */
  thinkingDisplay?: 'summarized' | 'omitted';
  /** The container a previous response of this conversation ran code in; sent back on every follow-up. */
  container?: string;
  contextManagement?: ContextManagement;
  /** Asked server-side when `model` refuses (`fallbacks`, SERVER_SIDE_FALLBACK_BETA). */
  fallbackModel?: string;
  /** `output_config.task_budget` in tokens (TASK_BUDGETS_BETA); the caller sends it only to a model that accepts one. */
  taskBudget?: number;
  /**
   * `tool_choice: {type: "none"}`: the tools stay defined (a history holding tool calls must define them, and the cached
   * prefix stays the same) but the model answers in text. Forcing a tool (`any`, `tool`) is refused on the 5.5 models.
   */
  toolChoice?: 'none';
  /**
   * Prompt-cache breakpoints (default true). A cache write costs 1.25× the input price and pays back only when the
   * prefix is read again (prompt caching docs, "Pricing"): conversations that grow turn by turn cache; a one-shot
   * call does not.
   */
  cache?: boolean;
  /** Names the step in error messages. */
  label: string;
  signal?: AbortSignal;
}

export interface SendResult {
  message: Message;
  /** This response's usage, priced. */
  usage: TokenUsage;
}

export interface MessagesApiOptions {
  client: Anthropic;
  prices: PriceTable;
  gate?: RequestGate;
  /** Retries of a request after 529, 5xx, 408, 409 or a connection failure. */
  maxRetries?: number;
  /** Longest a request waits out 429s in all before it fails (retryably, carrying the last retry-after). */
  maxRateLimitWaitMs?: number;
  /** Backoff base when no retry-after is given. */
  backoffMs?: number;
  /** What the server supports; default Anthropic's API (everything). */
  profile?: ServerProfile;
}

/** The SDK refuses non-streaming requests it expects to take over 10 minutes; stay well below. */
export const MAX_NON_STREAMING_TOKENS = 16_000;
/** A streamed request may ask for more (the models write up to 128K). */
export const MAX_STREAMING_TOKENS = 64_000;

const EPHEMERAL = { type: 'ephemeral' } as const;

/** The beta fields a request may carry, each sent with its beta header on the same endpoint. */
type BetaParams = MessageCreateParamsBase & {
  context_management?: { edits: BetaClearToolUses20250919Edit[] };
  fallbacks?: BetaFallbackParam[];
  output_config?: MessageCreateParamsBase['output_config'] & { task_budget?: BetaTokenTaskBudget };
};

const SERVER_TOOL_TYPE = /^(web_search|web_fetch|code_execution|bash_code_execution|text_editor_code_execution)_\d{8}$/;
/** Server tools run inside the request: the turn can take minutes. */
export const hasServerTool = (tools: ToolUnion[] | undefined): boolean =>
  !!tools?.some((t) => 'type' in t && typeof t.type === 'string' && SERVER_TOOL_TYPE.test(t.type));

/**
 * Prompt-cache breakpoints (prompt caching docs; `cache_control` in MessageCreateParams). The top-level `cache_control`
 * puts one on the last cacheable block, so it moves with the conversation; a second one stays on the last block of the
 * previous request (the last user message before the final one), so that prefix is read back even when the newest
 * turn added more blocks than the cache's lookback covers; a third on the system prompt, for the tools and system
 * shared across conversations. Three of the four allowed. Prefixes shorter than the model's minimum are not cached,
 * silently, which is why the moving breakpoint matters: the history is what grows past it.
 */
export function withCacheBreakpoints(messages: MessageParam[]): MessageParam[] {
  let previous = -1;
  for (let i = messages.length - 2; i >= 0; i--) {
    if (messages[i]!.role === 'user') {
      previous = i;
      break;
    }
  }
  if (previous < 0) return messages;
  const m = messages[previous]!;
  const blocks: ContentBlockParam[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : [...m.content];
  if (blocks.length === 0) return messages;
  blocks[blocks.length - 1] = { ...blocks[blocks.length - 1]!, cache_control: EPHEMERAL } as ContentBlockParam;
  const out = [...messages];
  out[previous] = { ...m, content: blocks } as MessageParam;
  return out;
}

const isRetryable = (e: AnthropicEngineError): boolean => e.retryable;
/** An answer that says the provider is down rather than this request wrong: 5xx, 529, or no connection. */
const isOutage = (e: AnthropicEngineError): boolean => !e.aborted && (e.status === undefined || e.status >= 500);
const outageReason = (e: AnthropicEngineError): string =>
  e.status === 529 ? 'Messages API overloaded (529)' : e.status !== undefined ? `Messages API HTTP ${e.status}${e.errorType ? ` ${e.errorType}` : ''}` : 'Messages API unreachable (connection failed)';

/**
 * Every Messages API request of the engine goes through here: prompt-cache breakpoints, the container, streaming for
 * server-tool turns (they can run for minutes; a stream is never idle, so no proxy cuts it, and no timeout resends a
 * turn whose searches were already billed), the fleet's rate-limit gate, retries, and the priced usage.
 * The SDK's own retries are off: it would retry a 429 per process, blind to the rest of the fleet.
 */
export class MessagesApi {
  readonly client: Anthropic;
  readonly prices: PriceTable;
  readonly profile: ServerProfile;
  /** The prices this server bills at: the table's, or nothing on a server that prices nothing. Reservations and usage both read it. */
  readonly billedPrices: PriceTable;
  private readonly gate: RequestGate;
  private readonly maxRetries: number;
  private readonly maxRateLimitWaitMs: number;
  private readonly backoffMs: number;

  constructor(o: MessagesApiOptions) {
    this.client = o.client;
    this.prices = o.prices;
    this.profile = o.profile ?? CLAUDE_PROFILE;
    this.billedPrices = this.profile.priced ? this.prices : FREE_PRICES;
    this.gate = o.gate ?? new LocalRequestGate();
    this.maxRetries = o.maxRetries ?? 4;
    this.maxRateLimitWaitMs = o.maxRateLimitWaitMs ?? 600_000;
    this.backoffMs = o.backoffMs ?? 500;
  }

  /** Whether a request of these tools is streamed. */
  streams(p: Pick<SendParams, 'tools' | 'maxTokens'>): boolean {
    return hasServerTool(p.tools) || p.maxTokens > MAX_NON_STREAMING_TOKENS;
  }

  params(p: SendParams): MessageCreateParamsBase {
    const stream = this.streams(p);
    const cache = (p.cache ?? true) && this.profile.promptCaching;
    const effort = this.profile.thinking ? p.effort : undefined;
    // Without structured output the schema is in the prompt (structuredCall); the field itself would be refused.
    const outputFormat = this.profile.structuredOutput ? p.outputFormat : undefined;
    const params: MessageCreateParamsBase = {
      model: p.model,
      max_tokens: Math.max(1, Math.min(p.maxTokens, stream ? MAX_STREAMING_TOKENS : MAX_NON_STREAMING_TOKENS)),
      system: [{ type: 'text', text: datedSystem(p.system), ...(cache ? { cache_control: EPHEMERAL } : {}) }],
      messages: cache ? withCacheBreakpoints(p.messages) : p.messages,
      ...(cache ? { cache_control: EPHEMERAL } : {}),
    };
    if (p.tools?.length) params.tools = p.tools;
    const taskBudget = this.profile.taskBudgets && p.taskBudget ? { type: 'tokens' as const, total: Math.floor(p.taskBudget) } : undefined;
    if (outputFormat || effort || taskBudget) {
      (params as BetaParams).output_config = { ...(outputFormat ? { format: outputFormat } : {}), ...(effort ? { effort } : {}), ...(taskBudget ? { task_budget: taskBudget } : {}) };
    }
    if (p.toolChoice && p.tools?.length && this.profile.toolChoice) params.tool_choice = { type: p.toolChoice };
    // Adaptive thinking is what these models do by default; sent only to choose how it is displayed.
    if (p.thinkingDisplay && this.profile.thinking) params.thinking = { type: 'adaptive', display: p.thinkingDisplay };
    if (p.container) params.container = p.container;
    if (p.contextManagement && this.profile.contextEditing) {
      const c = p.contextManagement;
      const edit: BetaClearToolUses20250919Edit = {
        type: 'clear_tool_uses_20250919',
        trigger: { type: 'input_tokens', value: c.triggerInputTokens },
        keep: { type: 'tool_uses', value: c.keepToolUses },
        clear_at_least: { type: 'input_tokens', value: c.clearAtLeastTokens },
      };
      (params as BetaParams).context_management = { edits: [edit] };
    }
    if (p.fallbackModel && p.fallbackModel !== p.model) (params as BetaParams).fallbacks = [{ model: p.fallbackModel }];
    return params;
  }

  async send(p: SendParams): Promise<SendResult> {
    const params = this.params(p);
    const stream = this.streams(p);
    let failures = 0;
    let rateLimitWaited = 0;
    let outageWaited = 0;
    for (let attempt = 1; ; attempt++) {
      let ticket;
      try {
        ticket = await this.gate.enter(p.signal);
      } catch (err) {
        throw toEngineError(abortError(err), p.label, attempt - 1);
      }
      try {
        const { message, headers, usage } = await inModelCallSpan(p.model, params.max_tokens, p.label, async (span) => {
          const answer = await this.request(params, stream, p.signal);
          // A response the fallback model served is billed at its prices.
          const priced = usageOf(answer.message.usage, servedByFallback(answer.message.content)?.to ?? p.model, this.billedPrices);
          recordModelResponse(span, answer.message, priced);
          return { ...answer, usage: priced };
        });
        await ticket.done(true);
        this.gate.observe?.(rateLimitHeaders(headers));
        return { message, usage };
      } catch (raw) {
        const headers = (raw as { headers?: Headers }).headers;
        const err = toEngineError(raw, p.label, attempt, { retryAfterMs: retryAfterMs(headers) });
        if (headers) this.gate.observe?.(rateLimitHeaders(headers));
        if (!(err instanceof AnthropicEngineError)) {
          await ticket.done(false);
          throw err;
        }
        if (err.status === 429) {
          const wait = err.retryAfterMs ?? this.backoff(failures + 1);
          await ticket.rateLimited(wait);
          // A retry-after of 0 still counts, so a wall that never lifts cannot spin a request forever.
          rateLimitWaited += Math.max(wait, 100);
          if (rateLimitWaited > this.maxRateLimitWaitMs) throw err;
          continue;
        }
        // The provider is down (5xx, 529, no connection): a mark against the fleet's breaker. Once it is open the
        // request waits at the gate for the probe, spending none of its retries; past the wait cap the task goes back
        // to its queue (rateLimitedForMs), still without spending an attempt.
        const shutMs = isOutage(err) && ticket.unavailable ? await ticket.unavailable(outageReason(err)) : 0;
        if (shutMs > 0) {
          outageWaited += shutMs;
          if (outageWaited > this.maxRateLimitWaitMs) throw new AnthropicEngineError(err.message, true, err.status, err.errorType, err.requestId, { cause: err, waitForMs: shutMs });
          continue;
        }
        if (!(isOutage(err) && ticket.unavailable)) await ticket.done(false);
        if (!isRetryable(err) || failures >= this.maxRetries) throw err;
        failures += 1;
        try {
          await sleep(err.retryAfterMs ?? this.backoff(failures), p.signal);
        } catch (abort) {
          throw toEngineError(abortError(abort), p.label, attempt);
        }
      }
    }
  }

  /**
   * Input tokens of a prompt, counted by the API (`POST /v1/messages/count_tokens`, the SDK's messages.countTokens):
   * free, and exact for the model's tokenizer, where a characters-per-token guess is off by a third on the newer
   * tokenizer. Undefined when the count fails: callers keep their estimate.
   */
  async countTokens(p: Pick<SendParams, 'model' | 'system' | 'messages' | 'signal'>): Promise<number | undefined> {
    try {
      const r = await this.client.messages.countTokens({ model: p.model, system: datedSystem(p.system), messages: p.messages }, { maxRetries: 0, ...(p.signal ? { signal: p.signal } : {}) });
      return r.input_tokens;
    } catch {
      return undefined;
    }
  }

  private backoff(n: number): number {
    return Math.min(30_000, this.backoffMs * 2 ** (n - 1)) * (0.75 + Math.random() * 0.5);
  }

  private async request(params: MessageCreateParamsBase, stream: boolean, signal?: AbortSignal): Promise<{ message: Message; headers: Headers }> {
    const betas = [
      ...((params as BetaParams).context_management !== undefined ? [CONTEXT_MANAGEMENT_BETA] : []),
      ...((params as BetaParams).fallbacks !== undefined ? [SERVER_SIDE_FALLBACK_BETA] : []),
      ...((params as BetaParams).output_config?.task_budget !== undefined ? [TASK_BUDGETS_BETA] : []),
    ];
    const opts = { maxRetries: 0, ...(signal ? { signal } : {}), ...(betas.length ? { headers: { 'anthropic-beta': betas.join(',') } } : {}) };
    if (stream) {
      const s = this.client.messages.stream(params, opts);
      const { response } = await s.withResponse();
      return { message: await s.finalMessage(), headers: response.headers };
    }
    const { data, response } = await this.client.messages.create({ ...params, stream: false }, opts).withResponse();
    return { message: data, headers: response.headers };
  }
}

/** An aborted wait, as the SDK reports an aborted request. */
function abortError(err: unknown): unknown {
  if (err instanceof Error && err.name === 'AbortError') return err;
  const e = new Error(err instanceof Error ? err.message : 'aborted');
  e.name = 'AbortError';
  return e;
}

export function textOf(content: ContentBlock[] | ContentBlockParam[]): string {
  return content
    .filter((b): b is Extract<ContentBlock, { type: 'text' }> => b.type === 'text')
    .map((b) => b.text)
    .join('');
}

/**
 * The model that served a response after a server-side fallback (the last `fallback` block's `to`), or undefined when
 * the requested model answered. A refusal that carries one was declined by the fallback model too.
 */
export function servedByFallback(content: ReadonlyArray<{ type: string }>): { from: string; to: string } | undefined {
  const hop = [...content].reverse().find((b) => b.type === 'fallback') as { from?: { model?: string }; to?: { model?: string } } | undefined;
  return hop?.to?.model ? { from: hop.from?.model ?? '', to: hop.to.model } : undefined;
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
