import { parentPort } from 'node:worker_threads';
import type { ThreadReply } from '../threads/on-demand-thread';
import type { StoredPassage } from './passage-store';
import { analysePassages } from './store-query';

// The thread side of analyseInThread: passages in, the same passages with their index terms out, in the order sent.
const port = parentPort!;
port.on('message', (call: { id: number; passages: StoredPassage[] }) => {
  analysePassages(call.passages).then(
    (value) => port.postMessage({ id: call.id, ok: true, value } satisfies ThreadReply),
    (err: unknown) => port.postMessage({ id: call.id, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies ThreadReply),
  );
});
