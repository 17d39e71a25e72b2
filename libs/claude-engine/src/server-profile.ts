/**
 * What the server behind ANTHROPIC_BASE_URL supports. Anthropic's API supports everything; local servers that speak the
 * Messages API (Ollama 0.14+, llama.cpp's server, vLLM) accept messages, client tools and streaming, but refuse or
 * ignore server tools (web search/fetch), `output_config` (structured output, effort), prompt caching and context editing, and their
 * tokens cost nothing. Callers read the profile, never a server's name.
 */
export interface ServerProfile {
  /** Server tools (web search, web fetch, code execution) run on the server. */
  serverTools: boolean;
  /** `output_config.format` (a JSON schema the reply is constrained to); without it the schema goes in the prompt. */
  structuredOutput: boolean;
  /** `cache_control` breakpoints. */
  promptCaching: boolean;
  /** Server-side tool-result clearing (`context_management`, beta); without it the full history is sent. */
  contextEditing: boolean;
  /** `output_config.effort` and `thinking`. */
  thinking: boolean;
  /** Tokens are billed at the price table's rates; false prices them at 0. */
  priced: boolean;
  /**
   * `tool_choice` (`none` for a loop's tool-free final turn). Local servers' compatibility pages do not list it, so
   * there it is left out and the final turn's instruction alone asks for text.
   */
  toolChoice: boolean;
  /** `output_config.task_budget` (beta), on the models that take one (TASK_BUDGET_MODELS). */
  taskBudgets: boolean;
}

export const CLAUDE_PROFILE: ServerProfile = { serverTools: true, structuredOutput: true, promptCaching: true, contextEditing: true, thinking: true, priced: true, toolChoice: true, taskBudgets: true };
export const LOCAL_PROFILE: ServerProfile = { serverTools: false, structuredOutput: false, promptCaching: false, contextEditing: false, thinking: false, priced: false, toolChoice: false, taskBudgets: false };

export const SERVER_PROFILES = { claude: CLAUDE_PROFILE, local: LOCAL_PROFILE } as const;
export type ServerProfileName = keyof typeof SERVER_PROFILES;
