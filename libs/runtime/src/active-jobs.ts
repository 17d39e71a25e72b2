import { Job, Queue, type Worker } from 'bullmq';

export interface DrainLogger {
  log(message: string): void;
  warn(message: string): void;
}

/**
 * The jobs this process is running, with their lock tokens, so that a shutdown can drain them
 * within a bound: stop taking jobs, wait up to `graceMs`, then close the worker and hand what is still running
 * back to the queue (moveToWait releases the lock) so that another process takes it at once instead
 * of after the lock expires. Steps and tasks are idempotent, so a released job is safe to rerun.
 *
 * BullMQ's pause does not cancel a fetch already blocked on the queue: a job that arrives as the drain starts is still
 * handed to this worker, after the drain has seen none active. Such a job is handed back unrun, so that no step runs
 * while the process closes its connections (one that did ended a run with its webhook lost).
 */
export class ActiveJobs {
  private readonly jobs = new Map<string, { job: Job; token: string | undefined }>();
  private stopping = false;

  get size(): number {
    return this.jobs.size;
  }

  async track<T>(job: Job, token: string | undefined, work: () => Promise<T>): Promise<T> {
    if (this.stopping) return this.handBack(job, token);
    const key = `${job.id}`;
    this.jobs.set(key, { job, token });
    try {
      return await work();
    } finally {
      this.jobs.delete(key);
    }
  }

  async drain(worker: Worker, graceMs: number, logger: DrainLogger): Promise<void> {
    this.stopping = true;
    await worker.pause(true).catch(() => undefined);
    const deadline = Date.now() + graceMs;
    if (this.jobs.size) logger.log(`shutting down: waiting up to ${graceMs} ms for ${this.jobs.size} active job(s)`);
    while (this.jobs.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (!this.jobs.size) return;
    const left = [...this.jobs.values()];
    // Closed before releasing: the fetch that pause left blocked on the queue wakes when a job is released, and would
    // take it back into this closing process, active and locked until its lock expired. Released through a queue of
    // the worker's own connection and prefix instead.
    await worker.close(true);
    const queue = new Queue(worker.name, { connection: worker.opts.connection, prefix: worker.opts.prefix });
    let released = 0;
    try {
      for (const { job, token } of left) {
        if (!token) continue;
        try {
          await new Job(queue, job.name, job.data, job.opts, job.id).moveToWait(token);
          released++;
        } catch (err) {
          logger.warn(`could not release job ${job.id}: ${(err as Error).message}; it is taken over when its lock expires`);
        }
      }
    } finally {
      await queue.close().catch(() => undefined);
    }
    logger.warn(`shutting down: released ${released} of ${left.length} unfinished job(s) back to the queue after ${graceMs} ms`);
  }

  /**
   * Back to the waiting list with its lock released, so that another process takes it at once; BullMQ's own handling
   * of the error thrown then finds the lock gone and leaves the job where it is (no attempt is spent). Should the release
   * fail, the error is an ordinary failure: the job is retried after its backoff, never failed for good.
   */
  private async handBack(job: Job, token: string | undefined): Promise<never> {
    if (token) await job.moveToWait(token).catch(() => undefined);
    throw new Error(`job ${job.id} reached this process as it stopped; handed back to the queue`);
  }
}
