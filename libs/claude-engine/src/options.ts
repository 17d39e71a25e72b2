import Anthropic from '@anthropic-ai/sdk';
import type { Model } from '@anthropic-ai/sdk/resources/messages';
import type { CoordinatorEngine, PassageSearch, SubagentEngine } from '@orrery/engine';
import { MessagesApi } from './messages-client';
import { DEFAULT_PRICES, type PriceTable } from './pricing';
import type { RequestGate } from './request-gate';
import { CLAUDE_PROFILE, type ServerProfile } from './server-profile';

/** Current model ids from the SDK's `Model` union (1.14): Opus-class hub, Sonnet-class spokes, Haiku-class judge. */
export const DEFAULT_COORDINATOR_MODEL: Model = 'claude-opus-5-5';
export const DEFAULT_SUBAGENT_MODEL: Model = 'claude-sonnet-5-5';
export const DEFAULT_JUDGE_MODEL: Model = 'claude-haiku-5-5';

/** The newest web search / web fetch server tool versions the installed SDK types define. */
export const WEB_SEARCH_TOOL_TYPE = 'web_search_20260318' as const;
export const WEB_FETCH_TOOL_TYPE = 'web_fetch_20260318' as const;
/**
 * Models that accept `output_config.task_budget` (task budgets docs, platform.claude.com/docs/en/build-with-claude/
 * task-budgets, "supportedModels"), and its smallest total (the Opus 4.7 launch notes: 20,000 tokens). Below it, or on
 * another model, the loop's own budget stop and its tool-free final turn do the pacing.
 */
export const TASK_BUDGET_MODELS = [
  'claude-fable-5-1',
  'claude-mythos-5-1',
  'claude-fable-5',
  'claude-mythos-5',
  'claude-opus-5-5',
  'claude-opus-5',
  'claude-opus-4-8',
  'claude-opus-4-7',
  'claude-sonnet-5-5',
  'claude-haiku-5-5',
] as const;
export const MIN_TASK_BUDGET = 20_000;
export const acceptsTaskBudget = (model: string): boolean => TASK_BUDGET_MODELS.some((m) => model === m || model.startsWith(`${m}-2`));

/** The code execution version the web tools may be called from (`allowed_callers`). */
export const CODE_EXECUTION_TOOL_TYPE = 'code_execution_20260120' as const;

/**
 * Who may call the web tools (`allowed_callers` on web_search_20260318 / web_fetch_20260318): `direct` (the model
 * itself; results come back as search results and cited text), or `code-execution` too, where the model filters
 * pages with code in a container before they reach its context (cheaper on long pages; the filtered output is what
 * quotes are checked against, and every follow-up must name the container).
 */
export type WebCallers = 'direct' | 'code-execution';

export interface WebSearchConfig {
  enabled: boolean;
  /** Default `direct`. */
  callers?: WebCallers;
  /** Per request (the API counts uses per request); default 5. */
  maxUses?: number;
  /** Only these domains appear in results. Cannot be combined with blockedDomains (the API rejects both). */
  allowedDomains?: string[];
  blockedDomains?: string[];
}

export interface WebFetchConfig {
  enabled: boolean;
  maxUses?: number;
  /** Fetching is limited to URLs that appeared earlier in the conversation (search results) and to these domains. */
  allowedDomains?: string[];
  blockedDomains?: string[];
  maxContentTokens?: number;
}

export interface AnthropicClientOptions {
  apiKey?: string;
  baseURL?: string;
  /** Per-request timeout in ms; default 300 s. Server-tool turns are streamed, so this bounds the wait for the stream to open. */
  timeout?: number;
}

export interface AnthropicEngineOptions {
  /** A ready client, or options to build one. */
  client?: Anthropic | AnthropicClientOptions;
  /** Coordinator (plan, coverage critique, refinement) model. */
  model?: string;
  subagentModel?: string;
  judgeModel?: string;
  webSearch?: WebSearchConfig;
  webFetch?: WebFetchConfig;
  /** Corpus client tools (search_corpus, read_passage); the corpus engine implements it. */
  passages?: PassageSearch;
  /**
   * The corpus a task names (its `corpus`, or undefined), resolved per task: the engine asks for it at the start of each
   * search task and gives the model that corpus's tools. Takes precedence over `passages`. The resolver should cache
   * (CorpusRegistry.load loads each corpus once per process); undefined means no corpus tools for that task.
   */
  passagesFor?: PassagesResolver;
  /** Used when the model's output fails validation twice, or the model refuses (after refusalFallbackModel, if set). */
  fallback?: CoordinatorEngine | SubagentEngine;
  /**
   * The model a refused request is retried on before any corpus fallback (refusals-and-fallback docs: "You can usually
   * still get an answer by sending the same request to another Claude model"). Unset: no retry.
   */
  refusalFallbackModel?: string;
  /** pause_turn continuations per loop; default 5. */
  maxContinuations?: number;
  /** Requests per agent loop (safety net only); default 24. */
  maxIterations?: number;
  /** Output token limit per request; default 4096 (structured output retries once with double). */
  maxTokens?: number;
  /** Tool calls in a row without a new source before the health monitor nudges; default 3. */
  idleThreshold?: number;
  /** The price table costs are computed with; default DEFAULT_PRICES. */
  prices?: PriceTable;
  /** Where requests wait out rate limits: the fleet's (Redis) in a service, the process's by default. */
  gate?: RequestGate;
  /** Retries of a request after 529, 5xx or a connection failure (429s wait at the gate instead); default 4. */
  maxRetries?: number;
  /** Longest a request waits out 429s before it fails retryably; default 10 minutes. */
  maxRateLimitWaitMs?: number;
  /** Tokens a search task is expected to take, thinking included; the hub reserves this much per task before dispatch. Default 60,000. */
  taskTokenEstimate?: number;
  /** Tool calls a search task may make when its payload carries no budget; default 40. */
  maxToolCallsPerTask?: number;
  /** The judge inside each research loop; without it the loop has only its health monitor. */
  loopJudge?: LoopJudgeSettings;
  /** What the server behind the client supports (server-profile.ts); default Anthropic's API. */
  profile?: ServerProfile;
}

export interface LoopJudgeSettings {
  /** A synchronous judge-model call every this many steps (LOOP_JUDGE_EVERY), asynchronous ones in between. */
  every: number;
  timeoutMs: number;
  /** Read before every model judgement: JUDGE and the deployment's switch. */
  enabled: () => Promise<boolean>;
}

/** The corpus a task's tools search; the topic names what a stored corpus's working index covers. */
export type PassagesResolver = (corpus: string | undefined, topic: string) => Promise<PassageSearch | undefined> | PassageSearch | undefined;

export interface ResolvedEngineOptions {
  api: MessagesApi;
  model: string;
  subagentModel: string;
  judgeModel: string;
  refusalFallbackModel?: string;
  webSearch: WebSearchConfig;
  webFetch: WebFetchConfig;
  passages?: PassageSearch;
  passagesFor?: PassagesResolver;
  maxContinuations: number;
  maxIterations: number;
  maxTokens: number;
  idleThreshold: number;
  taskTokenEstimate: number;
  maxToolCallsPerTask: number;
  loopJudge?: LoopJudgeSettings;
}

export function buildClient(client: Anthropic | AnthropicClientOptions | undefined): Anthropic {
  if (client instanceof Anthropic) return client;
  const o = client ?? {};
  return new Anthropic({
    apiKey: o.apiKey ?? process.env['ANTHROPIC_API_KEY'] ?? null,
    baseURL: o.baseURL ?? process.env['ANTHROPIC_BASE_URL'] ?? undefined,
    // The engine retries itself (MessagesApi): the SDK's per-process retries would be blind to the fleet's rate limit.
    maxRetries: 0,
    timeout: o.timeout ?? 300_000,
  });
}

export function resolveOptions(o: AnthropicEngineOptions): ResolvedEngineOptions {
  const profile = o.profile ?? CLAUDE_PROFILE;
  // A server without server tools has no web: the corpus tools are the only source.
  const webSearch = profile.serverTools ? (o.webSearch ?? { enabled: true }) : { enabled: false };
  if (webSearch.allowedDomains?.length && webSearch.blockedDomains?.length) {
    throw new Error('webSearch: allowedDomains and blockedDomains cannot both be set (the Messages API rejects it)');
  }
  if (webSearch.callers === 'code-execution' && !webSearch.enabled) throw new Error('webSearch.callers: code-execution needs web search on');
  return {
    api: new MessagesApi({
      client: buildClient(o.client),
      prices: o.prices ?? DEFAULT_PRICES,
      ...(o.gate ? { gate: o.gate } : {}),
      maxRetries: o.maxRetries ?? 4,
      maxRateLimitWaitMs: o.maxRateLimitWaitMs ?? 600_000,
      profile,
    }),
    model: o.model ?? DEFAULT_COORDINATOR_MODEL,
    subagentModel: o.subagentModel ?? DEFAULT_SUBAGENT_MODEL,
    judgeModel: o.judgeModel ?? DEFAULT_JUDGE_MODEL,
    ...(o.refusalFallbackModel ? { refusalFallbackModel: o.refusalFallbackModel } : {}),
    webSearch,
    webFetch: profile.serverTools && webSearch.enabled ? (o.webFetch ?? { enabled: true }) : { enabled: false },
    passages: o.passages,
    passagesFor: o.passagesFor,
    maxContinuations: o.maxContinuations ?? 5,
    maxIterations: o.maxIterations ?? 24,
    maxTokens: o.maxTokens ?? 4096,
    idleThreshold: o.idleThreshold ?? 3,
    taskTokenEstimate: o.taskTokenEstimate ?? 60_000,
    maxToolCallsPerTask: o.maxToolCallsPerTask ?? 40,
    ...(o.loopJudge ? { loopJudge: o.loopJudge } : {}),
  };
}
