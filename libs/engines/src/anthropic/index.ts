export { runAgentLoop, compactToolResults, CLEARED_TOOL_RESULT } from './agent-loop';
export type { AgentLoopConfig, AgentLoopResult, ClientToolHandler, ClientToolOutcome, LoopStats, LoopStatus } from './agent-loop';
export { AnthropicCoordinatorEngine, COVERAGE_THRESHOLD, MAX_OVERLAP } from './coordinator-engine';
export type { JudgeInput, JudgeVerdictResult } from './coordinator-engine';
export { AnthropicEngineError, StructuredOutputError } from './errors';
export {
  DEFAULT_COORDINATOR_MODEL,
  DEFAULT_JUDGE_MODEL,
  DEFAULT_SUBAGENT_MODEL,
  WEB_FETCH_TOOL_TYPE,
  WEB_SEARCH_TOOL_TYPE,
  buildClient as buildAnthropicClient,
} from './options';
export type { AnthropicClientOptions, AnthropicEngineOptions, WebFetchConfig, WebSearchConfig } from './options';
export { AGENT_ROLES, roleFromSystem, SYSTEM_PROMPTS, UNTRUSTED_NOTICE } from './prompts';
export type { AgentRole } from './prompts';
export { JudgeVerdictSchema } from './schemas';
export type { JudgeVerdict } from './schemas';
export { SourceLedger, webSourceId } from './sources';
export { structuredCall } from './structured';
export { AnthropicSubagentEngine } from './subagent-engine';
