import type { PassageStore } from './passage-store';
import { PostgresPassageStore } from './postgres-passage-store';
import { SqlitePassageStore } from './sqlite-passage-store';
import { loadStoreLocation, type StoreLocation } from './store-config';

/** Open the passage store a location names (the one place that picks an adapter). */
export function openPassageStore(location: StoreLocation = loadStoreLocation()): PassageStore {
  return location.kind === 'postgres' ? new PostgresPassageStore({ url: location.url, schema: location.schema }) : new SqlitePassageStore(location.file);
}
