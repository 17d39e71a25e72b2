import type { Job, Worker } from 'bullmq';

export interface DrainLogger {
  log(message: string): void;
  warn(message: string): void;
}

/**
 * The jobs this process is running, with their lock tokens, so that a shutdown can drain them
 * within a bound: stop taking jobs, wait up to `graceMs`, then hand what is still running back
 * to the queue (moveToWait releases the lock) so that another process takes it at once instead
 * of after the lock expires. Steps and tasks are idempotent, so a released job is safe to rerun.
 */
export class ActiveJobs {
  private readonly jobs = new Map<string, { job: Job; token: string | undefined }>();

  get size(): number {
    return this.jobs.size;
  }

  async track<T>(job: Job, token: string | undefined, work: () => Promise<T>): Promise<T> {
    const key = `${job.id}`;
    this.jobs.set(key, { job, token });
    try {
      return await work();
    } finally {
      this.jobs.delete(key);
    }
  }

  async drain(worker: Worker, graceMs: number, logger: DrainLogger): Promise<void> {
    await worker.pause(true).catch(() => undefined);
    const deadline = Date.now() + graceMs;
    if (this.jobs.size) logger.log(`shutting down: waiting up to ${graceMs} ms for ${this.jobs.size} active job(s)`);
    while (this.jobs.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (!this.jobs.size) return;
    const left = [...this.jobs.values()];
    let released = 0;
    for (const { job, token } of left) {
      if (!token) continue;
      try {
        await job.moveToWait(token);
        released++;
      } catch (err) {
        logger.warn(`could not release job ${job.id}: ${(err as Error).message}; it is taken over when its lock expires`);
      }
    }
    logger.warn(`shutting down: released ${released} of ${left.length} unfinished job(s) back to the queue after ${graceMs} ms`);
    await worker.close(true);
  }
}
