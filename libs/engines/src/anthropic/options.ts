import Anthropic from '@anthropic-ai/sdk';
import type { Model } from '@anthropic-ai/sdk/resources/messages';
import type { CoordinatorEngine, PassageSearch, SubagentEngine } from '../engine';

/** Current model ids from the SDK's `Model` union (1.14): Opus-class hub, Sonnet-class spokes, Haiku-class judge. */
export const DEFAULT_COORDINATOR_MODEL: Model = 'claude-opus-5-5';
export const DEFAULT_SUBAGENT_MODEL: Model = 'claude-sonnet-5-5';
export const DEFAULT_JUDGE_MODEL: Model = 'claude-haiku-5-5';

/** The newest web search / web fetch server tool versions the installed SDK types define. */
export const WEB_SEARCH_TOOL_TYPE = 'web_search_20260318' as const;
export const WEB_FETCH_TOOL_TYPE = 'web_fetch_20260318' as const;

export interface WebSearchConfig {
  enabled: boolean;
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
  /** SDK retries for 408/409/429/5xx, honouring `retry-after`; default 3. After that the error propagates (BullMQ backs off). */
  maxRetries?: number;
  /** Per-request timeout in ms; default 300 s (server-side web searches can take a while). */
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
  /** Used when the model's output fails validation twice, or the model refuses. */
  fallback?: CoordinatorEngine | SubagentEngine;
  /** pause_turn continuations per loop; default 5. */
  maxContinuations?: number;
  /** Requests per agent loop (safety net only); default 24. */
  maxIterations?: number;
  /** Output token limit per request; default 4096 (structured output retries once with double). */
  maxTokens?: number;
  /** Tool calls in a row without a new source before the health monitor nudges; default 3. */
  idleThreshold?: number;
}

export type PassagesResolver = (corpus: string | undefined) => Promise<PassageSearch | undefined> | PassageSearch | undefined;

export interface ResolvedEngineOptions {
  client: Anthropic;
  model: string;
  subagentModel: string;
  judgeModel: string;
  webSearch: WebSearchConfig;
  webFetch: WebFetchConfig;
  passages?: PassageSearch;
  passagesFor?: PassagesResolver;
  maxContinuations: number;
  maxIterations: number;
  maxTokens: number;
  idleThreshold: number;
}

export function buildClient(client: Anthropic | AnthropicClientOptions | undefined): Anthropic {
  if (client instanceof Anthropic) return client;
  const o = client ?? {};
  return new Anthropic({
    apiKey: o.apiKey ?? process.env['ANTHROPIC_API_KEY'] ?? null,
    baseURL: o.baseURL ?? process.env['ANTHROPIC_BASE_URL'] ?? undefined,
    maxRetries: o.maxRetries ?? 3,
    timeout: o.timeout ?? 300_000,
  });
}

export function resolveOptions(o: AnthropicEngineOptions): ResolvedEngineOptions {
  const webSearch = o.webSearch ?? { enabled: true };
  if (webSearch.allowedDomains?.length && webSearch.blockedDomains?.length) {
    throw new Error('webSearch: allowedDomains and blockedDomains cannot both be set (the Messages API rejects it)');
  }
  return {
    client: buildClient(o.client),
    model: o.model ?? DEFAULT_COORDINATOR_MODEL,
    subagentModel: o.subagentModel ?? DEFAULT_SUBAGENT_MODEL,
    judgeModel: o.judgeModel ?? DEFAULT_JUDGE_MODEL,
    webSearch,
    webFetch: o.webFetch ?? { enabled: false },
    passages: o.passages,
    passagesFor: o.passagesFor,
    maxContinuations: o.maxContinuations ?? 5,
    maxIterations: o.maxIterations ?? 24,
    maxTokens: o.maxTokens ?? 4096,
    idleThreshold: o.idleThreshold ?? 3,
  };
}
