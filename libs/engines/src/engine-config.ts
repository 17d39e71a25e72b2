import { EngineNameSchema, envInt, formatZodError } from '@orrery/protocol';
import { z } from 'zod';
import { DEFAULT_COORDINATOR_MODEL, DEFAULT_JUDGE_MODEL, DEFAULT_SUBAGENT_MODEL, priceTable } from '@orrery/claude-engine';
import { DEFAULT_CACHE_MB } from '@orrery/corpus-engine';
import { DEFAULT_READ_LIMITS, type ReadLimits } from '@orrery/passages/ingest';

const onOff = (def: 'on' | 'off') => z.enum(['on', 'off']).default(def);

/** A comma-separated list (blank entries dropped). */
export const splitList = (value: string): string[] =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * Engine settings shared by the coordinator and the subagents, validated at startup.
 * Model defaults come from the Claude engine itself (anthropic/options.ts): one source of truth.
 */
export const EngineConfigSchema = z
  .object({
    ENGINE: EngineNameSchema.default('auto'),
    DEFAULT_CORPUS: z.string().default('sotu'),
    /**
     * The corpus a Claude run without `corpus` uses. Unset by default: a Claude run researches the web, and uses a
     * corpus only when the request names one or an operator sets this on purpose.
     */
    CLAUDE_DEFAULT_CORPUS: z.string().min(1).optional(),
    CORPORA: z.string().default(''),
    /** Bytes of one file an ingest or a configured corpus reads (a JSONL file is streamed). */
    INGEST_MAX_FILE_BYTES: envInt(DEFAULT_READ_LIMITS.maxFileBytes, 1),
    /** Bytes read whole at once: one JSONL line, or one text file of a folder. */
    INGEST_MAX_RECORD_BYTES: envInt(DEFAULT_READ_LIMITS.maxRecordBytes, 1),
    /** MB a process keeps in cached working indexes (`CorpusIndex.bytes`): a repeat of a recent topic is warm. */
    CORPUS_CACHE_MB: envInt(DEFAULT_CACHE_MB, 1),
    SIMULATED_LATENCY_MS: envInt(0),
    SIMULATED_SUBTOPICS: envInt(4, 1),
    SIMULATED_ROUNDS: envInt(2, 1),
  SIMULATED_EMPTY_EVERY: envInt(0),
    /** Pivot drills: gap subtopics come back empty ('gaps'), re-planned ones too ('new'). */
    SIMULATED_DRY: z.enum(['none', 'gaps', 'new']).default('none'),
    ANTHROPIC_API_KEY: z.string().min(1).optional(),
    ANTHROPIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
    /**
     * What the server at ANTHROPIC_BASE_URL supports: `claude` (Anthropic's API) or `local` (Ollama, llama.cpp's
     * server, vLLM: no server tools, structured output, prompt caching or thinking params; price 0). `auto` (the
     * default) probes a base URL that is not Anthropic's at startup (detect-server.ts); set by hand, it wins.
     */
    ANTHROPIC_PROFILE: z.enum(['auto', 'claude', 'local']).default('auto'),
    /** Per-capability overrides of the profile (on/off; unset, the profile's): for a server that supports a part. */
    ANTHROPIC_SERVER_TOOLS: z.enum(['on', 'off']).optional(),
    ANTHROPIC_STRUCTURED_OUTPUT: z.enum(['on', 'off']).optional(),
    ANTHROPIC_PROMPT_CACHING: z.enum(['on', 'off']).optional(),
    ANTHROPIC_THINKING: z.enum(['on', 'off']).optional(),
    ANTHROPIC_MODEL: z.string().min(1).default(DEFAULT_COORDINATOR_MODEL),
    ANTHROPIC_SUBAGENT_MODEL: z.string().min(1).default(DEFAULT_SUBAGENT_MODEL),
    ANTHROPIC_JUDGE_MODEL: z.string().min(1).default(DEFAULT_JUDGE_MODEL),
    /** The model a refused Claude request is retried on before the corpus fallback; unset, none. */
    ANTHROPIC_REFUSAL_FALLBACK_MODEL: z.string().min(1).optional(),
    /** Retries of a request after 529, 5xx or a connection failure. 429s are waited out at the fleet's gate instead. */
    ANTHROPIC_MAX_RETRIES: envInt(4),
    /** Longest one request waits out 429s (retry-after) before its task gives its turn back to the queue. */
    ANTHROPIC_RATE_LIMIT_MAX_WAIT_MS: envInt(600_000, 1000),
    /** Price overrides, JSON: {"claude-sonnet-5-5": {"input": 3, "output": 15}} (dollars per million tokens). */
    ANTHROPIC_PRICES: z.string().default(''),
    WEB_SEARCH_PRICE_PER_1K: z.coerce.number().nonnegative().optional(),
    WEB_FETCH_PRICE_PER_1K: z.coerce.number().nonnegative().optional(),
    /**
     * Tokens the hub reserves per Claude search task before dispatch (settled to the actual usage). The researcher
     * thinks at high effort on every turn, and thinking is output: 60k leaves a task room for it.
     */
    TASK_TOKEN_ESTIMATE: envInt(60_000),
    /** Tool calls (client and server) one search task may make. */
    TASK_MAX_TOOL_CALLS: envInt(40, 1),
    /** The loop judge inside each Claude research task: a synchronous judge-model call every this many steps, asynchronous ones between. */
    LOOP_JUDGE_EVERY: envInt(5, 1),
    /** Per-request timeout of the Messages API client. */
    ANTHROPIC_TIMEOUT_MS: envInt(300_000, 1000),
    WEB_SEARCH: onOff('on'),
    WEB_SEARCH_MAX_USES: envInt(5, 1),
    WEB_SEARCH_ALLOWED_DOMAINS: z.string().default(''),
    WEB_SEARCH_BLOCKED_DOMAINS: z.string().default(''),
    /** Who may call the web tools: the model only, or code execution too (filters pages in a container first). */
    WEB_TOOL_CALLERS: z.enum(['direct', 'code-execution']).default('direct'),
    /** Web fetch (server tool), limited to URLs web search returned; needs WEB_SEARCH=on. On: a researcher reads its best results whole. */
    WEB_FETCH: onOff('on'),
    WEB_FETCH_MAX_USES: envInt(3, 1),
    WEB_FETCH_ALLOWED_DOMAINS: z.string().default(''),
    WEB_FETCH_BLOCKED_DOMAINS: z.string().default(''),
    WEB_FETCH_MAX_CONTENT_TOKENS: envInt(0),
  })
  .superRefine((c, ctx) => {
    try {
      priceTable({ prices: c.ANTHROPIC_PRICES });
    } catch (err) {
      ctx.addIssue({ code: 'custom', path: ['ANTHROPIC_PRICES'], message: (err as Error).message });
    }
    for (const tool of ['WEB_SEARCH', 'WEB_FETCH'] as const) {
      if (splitList(c[`${tool}_ALLOWED_DOMAINS`]).length && splitList(c[`${tool}_BLOCKED_DOMAINS`]).length) {
        ctx.addIssue({
          code: 'custom',
          path: [`${tool}_ALLOWED_DOMAINS`],
          message: `${tool}_ALLOWED_DOMAINS and ${tool}_BLOCKED_DOMAINS cannot both be set (the Messages API rejects it); use one`,
        });
      }
    }
  });
export type EngineConfig = z.infer<typeof EngineConfigSchema>;

/** What reading a corpus's files may take, from the settings. */
export const readLimitsOf = (c: Pick<EngineConfig, 'INGEST_MAX_FILE_BYTES' | 'INGEST_MAX_RECORD_BYTES'>): ReadLimits => ({
  maxFileBytes: c.INGEST_MAX_FILE_BYTES,
  maxRecordBytes: c.INGEST_MAX_RECORD_BYTES,
});

export function loadEngineConfig(env: NodeJS.ProcessEnv = process.env): EngineConfig {
  // An empty variable (`ANTHROPIC_API_KEY=`) means unset.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const parsed = EngineConfigSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new Error(`Invalid engine configuration: ${formatZodError(parsed.error)}`);
  }
  return parsed.data;
}
