import { formatZodError } from '@orrery/protocol';
import { join } from 'node:path';
import { z } from 'zod';
import { INDEX_CACHE_DIR } from '../corpus/index-cache';

export const DEFAULT_STORE_FILE = join(INDEX_CACHE_DIR, 'passages.sqlite');

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

export type StoreLocation = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; schema: string };

/**
 * `CORPUS_STORE`: a `postgres://…` URL for the PostgreSQL store, else a SQLite file path (default: a file
 * under the index cache dir). `CORPUS_STORE_SCHEMA` names the PostgreSQL schema (default `orrery`).
 */
export const StoreConfigSchema = z
  .object({
    CORPUS_STORE: z.string().trim().default(''),
    CORPUS_STORE_SCHEMA: z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be lowercase letters, digits and _')
      .default('orrery'),
  })
  .transform((c, ctx): StoreLocation => {
    if (!POSTGRES_URL.test(c.CORPUS_STORE)) return { kind: 'sqlite', file: c.CORPUS_STORE || DEFAULT_STORE_FILE };
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
  const cleaned = Object.fromEntries(Object.entries(env).filter(([k, v]) => k.startsWith('CORPUS_STORE') && v !== ''));
  const parsed = StoreConfigSchema.safeParse(cleaned);
  if (!parsed.success) throw new Error(`invalid store config: ${formatZodError(parsed.error)}`);
  return parsed.data;
}
