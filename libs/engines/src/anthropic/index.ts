export { runAgentLoop, budgetSpent } from './agent-loop';
export type { AgentLoopConfig, AgentLoopResult, ClientToolHandler, ClientToolOutcome, LoopBudget, LoopStats, LoopStatus, LoopStep, StepVerdict } from './agent-loop';
export { AnthropicCoordinatorEngine, COVERAGE_THRESHOLD, MAX_OVERLAP } from './coordinator-engine';
export { AnthropicEngineError, isFallbackWorthy, StructuredOutputError } from './errors';
export { MessagesApi, hasServerTool, withCacheBreakpoints } from './messages-client';
export type { MessagesApiOptions, SendParams, SendResult } from './messages-client';
export {
  CODE_EXECUTION_TOOL_TYPE,
  DEFAULT_COORDINATOR_MODEL,
  DEFAULT_JUDGE_MODEL,
  DEFAULT_SUBAGENT_MODEL,
  WEB_FETCH_TOOL_TYPE,
  WEB_SEARCH_TOOL_TYPE,
  buildClient as buildAnthropicClient,
} from './options';
export type { AnthropicClientOptions, AnthropicEngineOptions, WebCallers, WebFetchConfig, WebSearchConfig } from './options';
export { costOf, DEFAULT_PRICES, priceOf, priceTable } from './pricing';
export type { ModelPrice, PriceTable } from './pricing';
export { AGENT_ROLES, roleFromSystem, SYSTEM_PROMPTS, UNTRUSTED_NOTICE } from './prompts';
export type { AgentRole } from './prompts';
export { LocalRequestGate, rateLimitHeaders, retryAfterMs } from './request-gate';
export type { GateTicket, RateLimitHeaders, RequestGate } from './request-gate';
export { SourceLedger, webSourceId } from './sources';
export { structuredCall } from './structured';
export { AnthropicSubagentEngine } from './subagent-engine';
export { usageOf } from './usage';
export { CLAUDE_PROFILE, LOCAL_PROFILE, SERVER_PROFILES } from './server-profile';
export { type DetectedServer, detectServer } from './detect-server';
export type { ServerProfile, ServerProfileName } from './server-profile';
