/**
 * The raw BullMQ baseline's worker, a process of its own as Orrery's workers are: it echoes each job.
 * argv: <redis url> <key prefix> <queue name>
 */
import { Worker } from 'bullmq';

const [url, prefix, queue] = process.argv.slice(2);
const worker = new Worker(queue!, async (job) => ({ echo: job.data.i }), { connection: { url: url! }, prefix: prefix!, concurrency: 1 });
worker.on('error', () => undefined);
void worker.waitUntilReady().then(() => console.log('ready'));
process.on('SIGTERM', () => void worker.close().finally(() => process.exit(0)));
