import { checkRedisLocation, redisLocationFields } from '@orrery/runtime';
import { envInt, formatZodError, QueuePrefixSchema } from '@orrery/protocol';
import { z } from 'zod';


/** Every setting of a subagent worker process, validated at startup. */
export const SubagentConfigSchema = z.object({
  ...redisLocationFields,
  QUEUE_PREFIX: QueuePrefixSchema,
  SUBAGENT_CONCURRENCY: envInt(4, 1),
  /** Global rate limit across all worker processes: at most MAX tasks per DURATION_MS (0 = off). */
  SUBAGENT_RATE_MAX: envInt(0),
  SUBAGENT_RATE_DURATION_MS: envInt(1000, 1),
  /** A task lock lapses this long after its worker dies; another worker then takes it over. */
  SUBAGENT_LOCK_MS: envInt(30_000, 1000),
  WORKER_NAME: z.string().optional(),
  /** A task's progress lines are held this long: a task done sooner is reported by its result alone (0 = send all). */
  SUBAGENT_PROGRESS_QUIET_MS: envInt(100),
  /**
   * Ingest jobs (plans and chunks) this process runs at once. Two keep two cores busy: one chunk's passages are analysed
   * in this process's thread while another's are written in the store's thread (or by the database), and a plan reads
   * its source while chunks are written.
   */
  INGEST_CONCURRENCY: envInt(2, 1),
  /** An ingest job's lock: a killed worker's chunk is redone by another worker after this. */
  INGEST_LOCK_MS: envInt(30_000, 1000),
  /** Passages per chunk job. */
  INGEST_CHUNK_PASSAGES: z.coerce.number().int().min(1).max(10_000).default(500),
  INGEST_ATTEMPTS: envInt(3, 1),
  /** On SIGTERM, active tasks get this long to finish; then they are released to other workers. */
  SHUTDOWN_GRACE_MS: envInt(10_000, 0),
  /** 1: refuse to start unless Redis's maxmemory-policy is noeviction (else only warn). */
  STRICT_REDIS: z.enum(['0', '1']).default('0'),
}).superRefine(checkRedisLocation);
export type SubagentConfig = z.infer<typeof SubagentConfigSchema>;

export function loadSubagentConfig(env: NodeJS.ProcessEnv = process.env): SubagentConfig {
  const parsed = SubagentConfigSchema.safeParse(env);
  if (!parsed.success) throw new Error(`Invalid subagent configuration: ${formatZodError(parsed.error)}`);
  return parsed.data;
}

export const SUBAGENT_CONFIG = Symbol('SUBAGENT_CONFIG');
