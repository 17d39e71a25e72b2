import { z } from 'zod';

/** Stable identifiers shared by every process. Run ids are UUIDs; task ids derive from them. */
export const RunIdSchema = z.uuid({ message: 'run id must be a UUID' });
export const TaskIdSchema = z.string().regex(/^[a-z0-9.-]{3,200}$/, 'task id must be lowercase letters, digits, dots and dashes');

/** A corpus is named, never addressed by path: REST clients must not make the server read files. */
export const CorpusNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/i, 'corpus must be the name of a corpus the server knows (letters, digits, - and _), not a path');

/** The engines, listed once: every other list (config, CLI, the web page's choice) derives from or is checked against it. */
export const ENGINE_NAMES = ['corpus', 'anthropic', 'simulated'] as const;
export const ResolvedEngineSchema = z.enum(ENGINE_NAMES);
/** A request may also say `auto`: Claude when an API key is set, else the corpus engine. */
export const EngineNameSchema = z.enum(['auto', ...ENGINE_NAMES]);
export type EngineName = z.infer<typeof EngineNameSchema>;
export type ResolvedEngine = z.infer<typeof ResolvedEngineSchema>;
