import { loadStoreLocation } from '@orrery/passages';
import { envInt, formatZodError, QueuePrefixSchema } from '@orrery/protocol';
import { isAbsolute, resolve } from 'node:path';
import { checkRedisLocation, redisLocationFields } from '@orrery/runtime';
import { z } from 'zod';
import { STEP_BOUNDARIES } from './step-boundaries';

const list = z
  .string()
  .optional()
  .transform((v) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean));

export const MIN_API_KEY_CHARS = 32;
/** Bearer keys: long enough that guessing is hopeless. The message names the key by position, never by value. */
const keys = list.superRefine((all, ctx) => {
  all.forEach((k, i) => {
    if (k.length < MIN_API_KEY_CHARS) {
      ctx.addIssue({ code: 'custom', message: `key ${i + 1} of ${all.length} has ${k.length} characters; keys need at least ${MIN_API_KEY_CHARS} characters. Make one with \`openssl rand -hex 32\`` });
    }
  });
});

/** Absolute folders, normalised (no `..`, no trailing slash). */
const folders = list.superRefine((all, ctx) => {
  for (const f of all) if (!isAbsolute(f)) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(f)} is not an absolute path` });
}).transform((all) => all.map((f) => resolve(f)));

/** `host:port` entries (IPv6 in brackets), lower-cased: the webhook targets an operator lets through. */
const hostPorts = list.superRefine((all, ctx) => {
  for (const h of all) if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+):\d{1,5}$/i.test(h)) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(h)} is not host:port` });
}).transform((all) => all.map((h) => h.toLowerCase()));

/** Every setting of the coordinator, read from the environment and validated once at startup. */
export const CoordinatorConfigSchema = z.object({
  ...redisLocationFields,
  QUEUE_PREFIX: QueuePrefixSchema,
  PORT: envInt(3000),
  HOST: z.string().optional(),
  API_KEYS: keys,
  /** Operators' keys: every run, Bull Board's actions, /metrics, /readyz details. Valid API keys too. */
  ADMIN_API_KEYS: keys,
  /** Keyless mode answers only these Host names besides localhost, 127.0.0.1 and ::1 (DNS rebinding). */
  ALLOWED_HOSTS: list,
  /** Express's `trust proxy`: how the client address (for the failed-auth throttle) is read behind proxies. */
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === '' || v === 'false' ? false : v === 'true' ? true : /^\d+$/.test(v) ? Number(v) : v)),
  /** Per key (admins excepted): requests per minute, runs started per sliding minute, unfinished runs at once, tokens and US dollars per UTC day; 0 = no limit. */
  QUOTA_REQUESTS_PER_MINUTE: envInt(1200),
  QUOTA_RUNS_PER_MINUTE: envInt(20),
  QUOTA_CONCURRENT_RUNS: envInt(5),
  QUOTA_TOKENS_PER_DAY: envInt(20_000_000),
  QUOTA_COST_USD_PER_DAY: z.coerce.number().nonnegative().default(100),
  /**
   * Per key and process: requests with a body over 64 KiB (a large MCP `judge` call) read and answered at once; more
   * wait, unread, in line (up to 16 per key, then 429). Parsing and judging a 1 MB call holds the event loop for tens
   * of ms, so one key's parallel large calls would delay every other key's requests.
   */
  QUOTA_CONCURRENT_LARGE_BODIES: envInt(1, 1),
  /** No new run (503) while more jobs than this wait in the queues; 0 = no bound. */
  QUEUE_MAX_WAITING: envInt(10_000),
  /** Failed authentications per client address per minute before it gets 429; 0 = no limit. */
  AUTH_FAILURES_PER_MINUTE: envInt(20),
  /** Live SSE streams per key (admins excepted, across replicas) and per process. */
  SSE_MAX_STREAMS_PER_KEY: envInt(20, 1),
  SSE_MAX_STREAMS: envInt(1000, 1),
  /** MCP sessions a key may hold open per process (its least recently used idle one is closed past it), and how long one lives unused. */
  MCP_SESSIONS_PER_KEY: envInt(16, 1),
  MCP_SESSION_IDLE_SECONDS: envInt(1800, 1),
  /** An idle SSE stream gets a comment this often (and renews its place). */
  SSE_KEEPALIVE_MS: envInt(15_000, 100),
  COORDINATOR_CONCURRENCY: envInt(4, 1),
  MAX_SUBTOPICS: envInt(8, 1),
  /**
   * Findings one search task may return. A task that reads its best result whole verifies more quotes than snippets
   * held: 11 per task in test/anthropic/claude-run.test.ts's 3-round run, where 6 kept barely half; 12 keeps them all.
   */
  /** Unset: each engine's own (its port's `findingsPerTask`). */
  FINDINGS_PER_TASK: z.coerce.number().int().min(1).optional(),
  MAX_CITATIONS: envInt(25, 1),
  MAX_NEW_TASKS_PER_ROUND: envInt(4, 0),
  TASK_ATTEMPTS: envInt(3, 1),
  /** Attempts of each ingest job (plan and chunks) before the ingest counts as failed. */
  INGEST_ATTEMPTS: envInt(3, 1),
  /** The folders a path in POST /v1/corpora must lie in (on the workers' disk). No default: unset, no request names a path. */
  INGEST_ROOTS: folders,
  TASK_BACKOFF_MS: envInt(1000),
  BUDGET_MAX_TOKENS: envInt(2_000_000, 1),
  BUDGET_MAX_TASKS: envInt(40, 1),
  BUDGET_MAX_ROUNDS: envInt(3, 1),
  BUDGET_MAX_WALL_SECONDS: envInt(900, 1),
  /** US dollars per run, priced per request (ANTHROPIC_PRICES); a request's budget.maxCostUsd may only lower it. */
  BUDGET_MAX_COST_USD: z.coerce.number().positive().default(25),
  BUDGET_CAP_TOKENS: envInt(10_000_000, 1),
  BUDGET_CAP_TASKS: envInt(200, 1),
  BUDGET_CAP_ROUNDS: envInt(10, 1),
  BUDGET_CAP_WALL_SECONDS: envInt(3600, 1),
  BUDGET_CAP_COST_USD: z.coerce.number().positive().default(250),
  /** on: L0 rules, then the judge model where one is configured; off: rules only, conservative (kill switch). */
  JUDGE: z.enum(['on', 'off']).default('on'),
  JUDGE_TIMEOUT_MS: envInt(3000, 1),
  /** The judge model's budget on a complex round decision (the rules propose stop or pivot); past it the rules' conservative answer stands. */
  JUDGE_COMPLEX_TIMEOUT_MS: envInt(15_000, 1),
  /** How often the coordinator sends the judge model a minimal judgement to see it answers in budget (0: never). */
  JUDGE_PROBE_INTERVAL_MS: envInt(300_000, 0),
  /** Share of subtopics with enough evidence at which research counts as complete. */
  TARGET_COVERAGE: z.coerce.number().min(0).max(1).default(0.8),
  RUN_RETENTION_SECONDS: envInt(7 * 24 * 3600, 5),
  /** The shortest `every` a watch may ask for: a question asked more often costs more than it can tell. */
  WATCH_MIN_EVERY_SECONDS: envInt(60, 1),
  /** Watches one key may keep. */
  WATCHES_PER_KEY: envInt(20, 1),
  EVENTS_MAXLEN: envInt(10_000, 100),
  /** A run that never finishes (a lost deployment, a bug) still leaves Redis after this long. */
  UNFINISHED_RUN_TTL_SECONDS: envInt(30 * 24 * 3600, 3600),
  /** Completed jobs kept per queue (by count and by age) so that re-dispatching a deterministic id stays a no-op. */
  JOB_RETENTION_COUNT: envInt(10_000, 10),
  JOB_RETENTION_SECONDS: envInt(24 * 3600, 60),
  /** A coordinator step's lock: when a coordinator dies mid-step, another replica takes the step over after this. */
  COORDINATOR_LOCK_MS: envInt(30_000, 1000),
  /** On SIGTERM, active steps get this long to finish; then they are released to other replicas. */
  SHUTDOWN_GRACE_MS: envInt(10_000, 0),
  /** The SIGTERM drill only: the step boundary where this process holds the first step that reaches it (queues/step-hold.ts). */
  STEP_HOLD_AT: z.enum(STEP_BOUNDARIES).optional(),
  /** Until when it holds: `exit`, past the grace (the step is released to another replica); `sigterm`, the step goes on as the process stops. */
  STEP_HOLD_UNTIL: z.enum(['exit', 'sigterm']).default('exit'),
  /** 1: refuse to start unless Redis's maxmemory-policy is noeviction (else only warn). */
  STRICT_REDIS: z.enum(['0', '1']).default('0'),
  /** Webhook targets that may be loopback, private or plain http (`host:port,...`); every other one must be public https. */
  WEBHOOK_ALLOWED_HOSTS: hostPorts,
  /** The deployment secret each key's webhook secret is derived from; unset: one is made once and kept in Redis (a warning at startup). */
  WEBHOOK_SECRET: z.string().min(32, 'WEBHOOK_SECRET needs at least 32 characters (openssl rand -hex 32)').optional(),
  /** Unset WEBHOOK_SECRET: how often a replica puts the one it signs with back in Redis (should Redis lose it). */
  WEBHOOK_SECRET_SYNC_MS: envInt(2000, 50),
  /** Attempts per webhook event, the first retry's delay (exponential after), and how long one POST may take. */
  WEBHOOK_ATTEMPTS: envInt(8, 1),
  WEBHOOK_BACKOFF_MS: envInt(2000, 0),
  WEBHOOK_TIMEOUT_MS: envInt(10_000, 100),
  /** Time a client has to send its request's headers, and the whole request; then 408 and the socket closes. */
  HTTP_HEADERS_TIMEOUT_MS: envInt(10_000, 100),
  HTTP_REQUEST_TIMEOUT_MS: envInt(30_000, 100),
  /** The failed-auth throttle and the request meter give Redis this long to answer; then the request gets 503. */
  REDIS_TIMEOUT_MS: envInt(5000, 100),
  /** /readyz gives Redis and the queues this long to answer. */
  READY_TIMEOUT_MS: envInt(2000, 100),
}).superRefine(checkRedisLocation)
  .refine((c) => c.HTTP_HEADERS_TIMEOUT_MS <= c.HTTP_REQUEST_TIMEOUT_MS, { message: 'HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS', path: ['HTTP_HEADERS_TIMEOUT_MS'] });
export type CoordinatorConfig = z.infer<typeof CoordinatorConfigSchema>;

export const COORDINATOR_CONFIG = Symbol('COORDINATOR_CONFIG');

export function loadCoordinatorConfig(env: NodeJS.ProcessEnv = process.env): CoordinatorConfig {
  const parsed = CoordinatorConfigSchema.safeParse(env);
  if (!parsed.success) {
    const problems = formatZodError(parsed.error);
    throw new Error(`Invalid coordinator configuration: ${problems}`);
  }
  // The passage store is opened on the first question on a stored corpus; its settings are checked now.
  try {
    loadStoreLocation(env);
  } catch (err) {
    throw new Error(`Invalid coordinator configuration: ${(err as Error).message}`);
  }
  return parsed.data;
}
