import type { PassageStore } from './passage-store';
import { PostgresPassageStore } from './postgres-passage-store';
import { SqlitePassageStore } from './sqlite-passage-store';
import { loadStoreLocation, type StoreLocation } from './store-config';
import { tracedPassageStore } from './traced-passage-store';
import { sqliteThreadAvailable, ThreadedPassageStore } from './threaded-passage-store';

/**
 * Open the passage store a location names (the one place that picks an adapter). SQLite runs in a thread
 * of its own where its compiled thread script exists (every built process); in place otherwise (tests run
 * from the TypeScript sources).
 */
export function openPassageStore(location: StoreLocation = loadStoreLocation()): PassageStore {
  if (location.kind === 'postgres') return tracedPassageStore(new PostgresPassageStore({ url: location.url, schema: location.schema }), 'postgresql');
  return tracedPassageStore(sqliteThreadAvailable() ? new ThreadedPassageStore(location.file) : new SqlitePassageStore(location.file), 'sqlite');
}
