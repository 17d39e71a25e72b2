import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import type { Job, Queue } from 'bullmq';

/**
 * The queue as a tenant sees it on the board: how many jobs are in each state, whether it is paused, its
 * concurrency and rate limit, and nothing that names a job. Every job (its id holds a run id; its data, progress,
 * result and error hold a topic), every worker (host names, pids, Redis client addresses), the job schedulers,
 * the flows and the Redis server's statistics come back empty, whichever route asks: the allow-list in front
 * of the board is the first guard, this is the second.
 */
export class TenantBoardAdapter extends BullMQAdapter {
  constructor(queue: Queue) {
    super(queue, { readOnlyMode: true });
  }
  override getJob(): Promise<Job | undefined> {
    return Promise.resolve(undefined);
  }
  override getJobs(): Promise<Job[]> {
    return Promise.resolve([]);
  }
  override getJobLogs(): Promise<string[]> {
    return Promise.resolve([]);
  }
  override getWorkers(): ReturnType<BullMQAdapter['getWorkers']> {
    return Promise.resolve([]);
  }
  override getJobSchedulers(): ReturnType<BullMQAdapter['getJobSchedulers']> {
    return Promise.resolve([]);
  }
  override getFlowProducer(): ReturnType<BullMQAdapter['getFlowProducer']> {
    return Promise.resolve(null);
  }
  override getRedisInfo(): Promise<string | null> {
    return Promise.resolve(null);
  }
  override getDatastoreStats(): ReturnType<BullMQAdapter['getDatastoreStats']> {
    return Promise.resolve(null);
  }
  override getClient(): ReturnType<BullMQAdapter['getClient']> {
    return Promise.resolve(null);
  }
}
