/**
 * The raw BullMQ baseline's worker, a process of its own as Orrery's workers are: it echoes each job.
 * argv: <redis location, JSON: REDIS_URL, REDIS_CLUSTER_NODES> <key prefix> <queue name>
 */
import { bullConnection, closeBullConnection, redisLocationFields } from '@orrery/runtime';
import { Worker } from 'bullmq';
import { z } from 'zod';

const [location, prefix, queue] = process.argv.slice(2);
const connection = bullConnection(z.object(redisLocationFields).parse(JSON.parse(location!)), { maxRetriesPerRequest: null });
const worker = new Worker(queue!, async (job) => ({ echo: job.data.i }), { connection, prefix: prefix!, concurrency: 1 });
worker.on('error', () => undefined);
void worker.waitUntilReady().then(() => console.log('ready'));
process.on('SIGTERM', () => void worker.close().finally(() => (closeBullConnection(connection), process.exit(0))));
