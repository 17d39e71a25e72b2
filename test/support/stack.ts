import { COORDINATOR_QUEUE, SUBAGENT_QUEUE, type StoredRunEvent } from '@orrery/protocol';
import { type Job, Queue } from 'bullmq';
import { queuePrefix } from '@orrery/runtime';
import { OrreryClient } from '../../apps/cli/src/client/orrery-client';
import { type ServiceProcess, startCoordinatorProcess, startWorkerProcess } from './service-processes';
import { dropPrefix, FIXTURE_CORPUS, REDIS_URL, uniquePrefix } from './test-env';

export interface Stack {
  prefix: string;
  client: OrreryClient;
  coordinator: ServiceProcess & { url: string };
  workers: ServiceProcess[];
  queues: { coordinator: Queue; subagents: Queue };
  /** Every job of a queue, in any state. */
  jobs(queue: 'coordinator' | 'subagents'): Promise<Job[]>;
  /** Follows a run's SSE stream to its end. */
  follow(runId: string): Promise<StoredRunEvent[]>;
  stop(): Promise<void>;
}

/** A real coordinator process and `workers` real subagent processes over the fixture corpus, on a prefix of their own. */
export async function startStack(name: string, options: { workers?: number; env?: Record<string, string>; workerEnv?: Record<string, string> } = {}): Promise<Stack> {
  const prefix = uniquePrefix(name);
  const env = { QUEUE_PREFIX: prefix, ENGINE: 'corpus', CORPORA: `kestrel=${FIXTURE_CORPUS}`, DEFAULT_CORPUS: 'kestrel', ...options.env };
  // All at once, as docker-compose starts them: each spends seconds loading modules, the others meanwhile.
  const started = await Promise.allSettled([
    startCoordinatorProcess(env),
    ...Array.from({ length: options.workers ?? 2 }, (_, i) => startWorkerProcess({ ...env, SUBAGENT_CONCURRENCY: '1', ...options.workerEnv }, `worker-${i + 1}`)),
  ]);
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    // The test never gets a stack to stop: the processes that did start stop here.
    await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.kill('SIGKILL') : undefined)));
    throw failed.reason;
  }
  const [coordinator, ...workers] = started.map((s) => (s as PromiseFulfilledResult<ServiceProcess>).value) as [ServiceProcess & { url: string }, ...ServiceProcess[]];
  const connection = { url: REDIS_URL };
  const queues = { coordinator: new Queue(COORDINATOR_QUEUE, { connection, prefix: queuePrefix(prefix) }), subagents: new Queue(SUBAGENT_QUEUE, { connection, prefix: queuePrefix(prefix) }) };
  const client = new OrreryClient(coordinator.url);
  return {
    prefix,
    client,
    coordinator,
    workers,
    queues,
    jobs: (q) => queues[q].getJobs(['completed', 'failed', 'active', 'waiting', 'delayed', 'waiting-children', 'prioritized']),
    follow: async (runId) => {
      const events: StoredRunEvent[] = [];
      await client.waitForEnd(runId, (e) => events.push(e));
      return events;
    },
    stop: async () => {
      await Promise.all([...workers, coordinator].map((p) => p.kill('SIGTERM')));
      await queues.coordinator.close();
      await queues.subagents.close();
      await dropPrefix(prefix);
    },
  };
}
