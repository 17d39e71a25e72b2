import { parentPort, workerData } from 'node:worker_threads';
import { SqlitePassageStore } from './sqlite-passage-store';
import type { ThreadReply } from '../threads/on-demand-thread';
import type { StoreCall } from './threaded-passage-store';

// The thread side of ThreadedPassageStore: one SQLite connection, calls answered in the order they come.
const store = new SqlitePassageStore((workerData as { file: string }).file);
const port = parentPort!;
port.on('message', (call: StoreCall) => {
  const method = store[call.method] as (...args: unknown[]) => Promise<unknown>;
  method.apply(store, call.args as unknown[]).then(
    (value) => port.postMessage({ id: call.id, ok: true, value } satisfies ThreadReply),
    (err: unknown) => port.postMessage({ id: call.id, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies ThreadReply),
  );
});
