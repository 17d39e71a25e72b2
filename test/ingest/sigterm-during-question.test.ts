import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrreryClient } from '../../apps/cli/src/client/orrery-client';
import { type ServiceProcess, startCoordinatorProcess, startWorkerProcess, waitFor } from '../support/service-processes';
import { generatedPassages, IngestCluster, toJsonl } from './ingest-support';

const GRACE_MS = 2000;
/** The grace, plus process exit and what one synchronous stretch of work may still hold the event loop. */
const SLACK_MS = 2500;

async function timedStop(proc: ServiceProcess): Promise<number> {
  const t0 = Date.now();
  await proc.kill('SIGTERM');
  return Date.now() - t0;
}

describe('SIGTERM during a question on a large corpus', () => {
  const cluster = new IngestCluster('sigterm-question', { SHUTDOWN_GRACE_MS: String(GRACE_MS), COORDINATOR_LOCK_MS: '3000', SUBAGENT_LOCK_MS: '3000' });
  const env = cluster.env;
  const procs: ServiceProcess[] = [];
  let client: OrreryClient;
  beforeAll(async () => {
    // The corpus is in the store with its structure kept (ready now includes it), ingested by a worker that then leaves.
    const ingester = await cluster.startWorker('question-ingester');
    await cluster.waitReady('large', await cluster.ingest('large', cluster.file('large.jsonl', toJsonl(generatedPassages(15_000)))), 240_000);
    await ingester.kill('SIGTERM');
    const coordinator = await startCoordinatorProcess(env);
    procs.push(coordinator);
    client = new OrreryClient(coordinator.url);
  }, 300_000);
  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    await cluster.stop();
  });

  it('the coordinator in its plan step, and a worker once tasks are dispatched, each exit within SHUTDOWN_GRACE_MS, and the run still finishes', { timeout: 180_000 }, async () => {
    const [coordinator] = procs as [ServiceProcess & { url: string }];
    const { id } = await client.submit({ topic: 'What do the documents say about salmon and the harbour ferry?', corpus: 'large' });
    await waitFor(async () => (await client.run(id)).status !== 'queued', 30_000, 'the plan step to start');
    const coordinatorStop = await timedStop(coordinator);
    expect(coordinatorStop).toBeLessThan(GRACE_MS + SLACK_MS);

    const replacement = await startCoordinatorProcess({ ...env, PORT: new URL(coordinator.url).port });
    procs.push(replacement);
    const worker = await startWorkerProcess({ ...env, SUBAGENT_CONCURRENCY: '1' }, 'question-worker-1');
    procs.push(worker);
    await waitFor(async () => (await client.run(id)).counters.tasksDispatched > 0 || (await client.run(id)).status === 'done', 90_000, 'tasks to be dispatched');
    const workerStop = await timedStop(worker);
    expect(workerStop).toBeLessThan(GRACE_MS + SLACK_MS);

    procs.push(await startWorkerProcess({ ...env, SUBAGENT_CONCURRENCY: '1' }, 'question-worker-2'));
    expect(await client.waitForEnd(id)).toBe('done');
  });
});
