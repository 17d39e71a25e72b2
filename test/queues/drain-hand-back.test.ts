/**
 * A job still running when its process stops is handed back to the queue, lock released, so that another process
 * takes it at once rather than after its lock expires. Real Redis and BullMQ: BullMQ's pause leaves the worker's
 * fetch blocked on the queue, and the hand-back wakes it, so the stopping worker itself could take the job again.
 */
import { Queue, Worker } from 'bullmq';
import { ActiveJobs } from '@orrery/runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { dropPrefix, redisClient, REDIS_URL, uniquePrefix } from '../support/test-env';

describe('draining a stopping worker', () => {
  const prefix = uniquePrefix('drain-hand-back');
  const connection = { url: REDIS_URL };
  afterAll(() => dropPrefix(prefix));

  it('leaves the unfinished job waiting, its lock released, after the worker has closed', { timeout: 30_000 }, async () => {
    const queue = new Queue('steps', { connection, prefix });
    const active = new ActiveJobs();
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    // Two slots: while the job runs, the other slot's fetch is blocked on the queue.
    const worker = new Worker('steps', (job, token) => active.track(job, token, () => (started(), new Promise<never>(() => undefined))), { connection, prefix, concurrency: 2, lockDuration: 20_000 });
    await worker.waitUntilReady();
    const job = await queue.add('step', {}, { jobId: 'held-step' });
    await running;
    await new Promise((r) => setTimeout(r, 200));

    await active.drain(worker, 100, { log: () => undefined, warn: () => undefined });

    const redis = redisClient();
    try {
      expect(await queue.getJobState(job.id!)).toBe('waiting');
      expect(await redis.exists(`${prefix}:steps:${job.id}:lock`)).toBe(0);
    } finally {
      redis.disconnect();
      await queue.close();
    }
  });
});
