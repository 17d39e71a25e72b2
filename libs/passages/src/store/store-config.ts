import { formatZodError, loadQueuePrefix, QueuePrefixSchema } from '@orrery/protocol';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

/** The folder under which each deployment keeps its data: `ORRERY_DATA_DIR`, else `$XDG_DATA_HOME/orrery`, else `~/.local/share/orrery`. */
export function dataRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ORRERY_DATA_DIR) return env.ORRERY_DATA_DIR;
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'orrery');
}

/**
 * The default SQLite store of a deployment (one `QUEUE_PREFIX`): a file in a folder named for it, so two deployments
 * on one machine never see each other's corpora (as they never see each other's queues).
 */
export function defaultStoreFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(dataRoot(env), loadQueuePrefix(env), 'passages.sqlite');
}

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

export type StoreLocation = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; schema: string };

/**
 * `CORPUS_STORE`: a `postgres://…` URL for the PostgreSQL store, else a SQLite file path (default: the deployment's
 * own, `defaultStoreFile`). `CORPUS_STORE_SCHEMA` names the PostgreSQL schema (default `orrery`).
 */
export const StoreConfigSchema = z
  .object({
    CORPUS_STORE: z.string().trim().default(''),
    // It names the default store's folder.
    QUEUE_PREFIX: QueuePrefixSchema,
    ORRERY_DATA_DIR: z.string().trim().optional(),
    XDG_DATA_HOME: z.string().trim().optional(),
    CORPUS_STORE_SCHEMA: z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be lowercase letters, digits and _')
      .default('orrery'),
  })
  .transform((c, ctx): StoreLocation => {
    if (!POSTGRES_URL.test(c.CORPUS_STORE)) return { kind: 'sqlite', file: c.CORPUS_STORE || defaultStoreFile(c) };
    try {
      new URL(c.CORPUS_STORE);
    } catch {
      ctx.addIssue({ code: 'custom', path: ['CORPUS_STORE'], message: 'is not a valid postgres:// URL' });
      return z.NEVER;
    }
    return { kind: 'postgres', url: c.CORPUS_STORE, schema: c.CORPUS_STORE_SCHEMA };
  });

/** Where the passage store lives, from the environment; a bad value is an error that names the variable. */
export function loadStoreLocation(env: NodeJS.ProcessEnv = process.env): StoreLocation {
  const read = (k: string) => k.startsWith('CORPUS_STORE') || k === 'QUEUE_PREFIX' || k === 'ORRERY_DATA_DIR' || k === 'XDG_DATA_HOME';
  const cleaned = Object.fromEntries(Object.entries(env).filter(([k, v]) => read(k) && v !== ''));
  const parsed = StoreConfigSchema.safeParse(cleaned);
  if (!parsed.success) throw new Error(`invalid store config: ${formatZodError(parsed.error)}`);
  return parsed.data;
}
