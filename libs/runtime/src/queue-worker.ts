import { type Job, type Queue, Worker, type WorkerOptions } from 'bullmq';

/**
 * A worker on a queue BullModule registered, on the queue's connection, prefix and telemetry (as `@Processor` would
 * give it), with options from the validated config: made at module init, so no decorator reads the environment at
 * import time.
 */
export function workerOn<R>(queue: Queue, process: (job: Job, token?: string) => Promise<R>, options: Omit<WorkerOptions, 'connection' | 'prefix' | 'telemetry'> = {}): Worker {
  const { connection, prefix, telemetry } = queue.opts;
  return new Worker(queue.name, process, { connection, prefix, telemetry, ...options });
}
