import { z } from 'zod';

/** Stable identifiers shared by every process. Run ids are UUIDs; task ids derive from them. */
export const RunIdSchema = z.uuid({ message: 'run id must be a UUID' });
export const TaskIdSchema = z.string().regex(/^[a-z0-9.-]{3,200}$/, 'task id must be lowercase letters, digits, dots and dashes');

/** A corpus is named, never addressed by path: REST clients must not make the server read files. */
export const CorpusNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/i, 'corpus must be the name of a corpus the server knows (letters, digits, - and _), not a path');

/** The corpus every process serves from the package: research may name it, no ingest may take its name. */
export const BUILTIN_CORPUS = 'sotu';

/**
 * Words BullMQ uses in a queue's keys (bullmq 6: `QueueKeys.getKeys`, and the suffixes its scripts add to job keys).
 * Corpus state keeps clear of queue keys by its own key space; refusing these names as well keeps a corpus from
 * ever being read as part of a queue (in Redis, in Bull Board, or by a person).
 */
const QUEUE_WORDS = new Set([
  'active', 'wait', 'waiting', 'waiting-children', 'paused', 'id', 'delayed', 'prioritized', 'stalled-check', 'completed', 'failed', 'stalled',
  'repeat', 'limiter', 'meta', 'events', 'pc', 'marker', 'de', 'dn', 'metrics', 'lock', 'logs', 'dependencies', 'processed', 'unsuccessful',
]);

/** Why a corpus cannot be ingested under `name`, or undefined when it can. */
export function reservedCorpusName(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (lower === BUILTIN_CORPUS) return `corpus name "${name}" is reserved: it is the built-in corpus; ingest yours under another name`;
  if (QUEUE_WORDS.has(lower)) return `corpus name "${name}" is reserved: the job queue uses that word for its own keys; choose another name`;
  return undefined;
}

/** A name an ingest may write a corpus under: a corpus name that is not reserved. */
export const IngestCorpusNameSchema = CorpusNameSchema.superRefine((name, ctx) => {
  const reason = reservedCorpusName(name);
  if (reason) ctx.addIssue({ code: 'custom', message: reason });
});

/** The engines, listed once: every other list (config, CLI, the web page's choice) derives from or is checked against it. */
export const ENGINE_NAMES = ['corpus', 'anthropic', 'simulated'] as const;
export const ResolvedEngineSchema = z.enum(ENGINE_NAMES);
/** A request may also say `auto`: Claude when an API key is set, else the corpus engine. */
export const EngineNameSchema = z.enum(['auto', ...ENGINE_NAMES]);
export type EngineName = z.infer<typeof EngineNameSchema>;
export type ResolvedEngine = z.infer<typeof ResolvedEngineSchema>;
