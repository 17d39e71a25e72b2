/**
 * Tenant B of bench:tenant-latency, in a thread of its own so that what tenant A's client does in the bench process
 * (sending 1 MB bodies, reading verdicts) never delays B's requests or its clock. Polls `GET /v1/research/:id`, one
 * request at a time, 20 ms apart; from a message `start`
 * to a message `stop`, then posts the times of the answers.
 */
import { parentPort, workerData } from 'node:worker_threads';

const { url, key, runId } = workerData as { url: string; key: string; runId: string };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let ms: number[] = [];
let polling = false;
parentPort!.on('message', (m: 'start' | 'stop') => {
  if (m === 'stop') parentPort!.postMessage(ms);
  ms = [];
  polling = m === 'start';
});

async function poll(): Promise<void> {
  for (;;) {
    if (!polling) {
      await sleep(20);
      continue;
    }
    const t0 = performance.now();
    const status = await fetch(`${url}/v1/research/${runId}`, { headers: { authorization: `Bearer ${key}` } }).then(
      async (res) => (await res.arrayBuffer(), res.status),
      () => 0,
    );
    // A reused connection the server closed meanwhile: not an answer, asked again.
    if (status === 0) continue;
    if (status !== 200) throw new Error(`B's GET answered ${status}`);
    if (polling) ms.push(performance.now() - t0);
    await sleep(20);
  }
}
void poll();
