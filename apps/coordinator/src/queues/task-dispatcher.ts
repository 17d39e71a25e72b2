import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { COORDINATOR_QUEUE, type CoordinatorStep, SUBAGENT_QUEUE, type SubagentTask } from '@orrery/protocol';
import { type Job, type JobState, type JobsOptions, Queue } from 'bullmq';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { DispatchedTasks } from './dispatched-tasks';
import { jobIds } from './job-ids';

const DAY = 24 * 3600;
/**
 * How long a dispatch holds back its step's job after the tasks: the step's write, and the completion of
 * the step that dispatched, would otherwise land in Redis (and on this machine's cores) while a quick
 * task's result is on its way back. A task that takes seconds does not notice either way.
 */
const STEP_WRITE_AFTER_MS = 5;

/** All queue access goes through here: the hub's steps and the spokes' tasks. */
@Injectable()
export class TaskDispatcher implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(TaskDispatcher.name);
  /**
   * Run submission's own handle on the coordinator queue, on a connection that fails at once while Redis is
   * away. The shared one queues commands offline and sends them on reconnect: a POST that answered 503 would
   * then have its plan job added later, and a run nobody was told about would start.
   */
  private readonly submissions: Queue;

  constructor(
    @InjectQueue(COORDINATOR_QUEUE) readonly coordinatorQueue: Queue,
    @InjectQueue(SUBAGENT_QUEUE) readonly subagentQueue: Queue,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
    private readonly dispatched: DispatchedTasks,
  ) {
    for (const q of [coordinatorQueue, subagentQueue]) q.on('error', (err) => this.logger.warn(`queue ${q.name}: ${err.message}`));
    this.submissions = new Queue(COORDINATOR_QUEUE, {
      connection: { url: config.REDIS_URL, enableOfflineQueue: false, maxRetriesPerRequest: 1 },
      prefix: config.QUEUE_PREFIX,
    });
    this.submissions.on('error', (err) => this.logger.warn(`submission queue: ${err.message}`));
  }

  /** Connected before the API takes requests, so that the first POST does not meet a connection still opening. */
  async onModuleInit(): Promise<void> {
    await this.submissions.waitUntilReady().catch((err) => this.logger.warn(`submission queue: ${(err as Error).message}`));
  }

  async onModuleDestroy(): Promise<void> {
    await this.submissions.close().catch(() => undefined);
  }

  /**
   * Retention is bounded by age and by count: completed jobs are kept (a day by default) so that
   * a re-dispatch with the same id stays a no-op; failed ones a week, for operators to look at.
   */
  private retention(): Pick<JobsOptions, 'removeOnComplete' | 'removeOnFail'> {
    const { JOB_RETENTION_SECONDS: age, JOB_RETENTION_COUNT: count } = this.config;
    return { removeOnComplete: { age, count }, removeOnFail: { age: Math.max(age, 7 * DAY), count } };
  }

  private stepOptions(jobId: string): JobsOptions {
    return {
      jobId,
      attempts: 5,
      backoff: { type: 'exponential', delay: 500 },
      ...this.retention(),
    };
  }

  private taskOptions(jobId: string): JobsOptions {
    return {
      jobId,
      attempts: this.config.TASK_ATTEMPTS,
      backoff: { type: 'exponential', delay: this.config.TASK_BACKOFF_MS },
      ...this.retention(),
    };
  }

  async enqueuePlan(runId: string): Promise<void> {
    const step: CoordinatorStep = { step: 'plan', runId };
    await this.submissions.add('plan', step, this.stepOptions(jobIds.plan(runId)));
  }

  /** One round: its tasks, and the round step that runs once they have all settled. */
  async dispatchRound(runId: string, round: number, tasks: SubagentTask[]): Promise<void> {
    await this.dispatchWithStep({ step: 'round', runId, round }, jobIds.round(runId, round), tasks);
  }

  async dispatchSynthesis(runId: string, task: SubagentTask, attempt = 0): Promise<void> {
    await this.dispatchWithStep({ step: 'finalize', runId, ...(attempt ? { attempt } : {}) }, jobIds.finalize(runId, attempt), [task]);
  }

  /** A retry of a round's failed results: the retried tasks, and the same round step to run again after them. */
  async dispatchRetry(runId: string, round: number, retry: number, tasks: SubagentTask[]): Promise<void> {
    await this.dispatchWithStep({ step: 'round', runId, round, retry }, jobIds.retry(runId, round, retry), tasks);
  }

  /**
   * The tasks first, as plain jobs: nothing stands between the dispatch and a worker. Then the step that
   * waits on them, as a delayed job: the last task's completion wakes it (see `wake`), and its own timer
   * wakes it if that never comes (this coordinator died), so the barrier lives in Redis, not in a process.
   * The step is written once the tasks have settled or STEP_WRITE_AFTER_MS has passed, whichever is first.
   * A coordinator killed before it is written is retried from its own step, and deterministic ids make
   * the repeat a no-op.
   */
  private async dispatchWithStep(step: CoordinatorStep, stepJobId: string, tasks: SubagentTask[]): Promise<void> {
    this.dispatched.add(tasks, stepJobId);
    const jobs = tasks.map((task) => ({ name: task.kind, data: task, opts: this.taskOptions(task.taskId) }));
    // addBulk wraps its jobs in MULTI/EXEC: for a single job (a writer, most retries) a plain add is 0.1 ms quicker.
    if (jobs.length === 1) await this.subagentQueue.add(jobs[0]!.name, jobs[0]!.data, jobs[0]!.opts);
    else await this.subagentQueue.addBulk(jobs);
    await this.dispatched.settledOrAfter(stepJobId, STEP_WRITE_AFTER_MS);
    await this.coordinatorQueue.add(step.step, step, { ...this.stepOptions(stepJobId), delay: this.config.STEP_RECHECK_MIN_MS });
    // A fast task can finish before its step exists, and its wake-up then finds nothing to wake.
    if (this.dispatched.allSettled(stepJobId)) void this.wake(stepJobId).catch((err: Error) => this.logger.warn(`waking ${stepJobId}: ${err.message}`));
  }

  /**
   * Wakes a step whose tasks have all settled. Best effort: a step already awake or done stays as it is,
   * and one caught mid-check (it found a task still out and is going back to sleep) is tried again shortly.
   */
  async wake(stepJobId: string): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const { job, state } = await this.jobState('steps', stepJobId);
      if (job && state === 'delayed') {
        try {
          await job.promote();
          return;
        } catch {
          // it left the delayed set in between: look again
        }
      } else if (state !== 'active') {
        return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /**
   * How long a step whose tasks are still out sleeps before it looks again: half its age so far, between
   * the configured bounds, so short rounds are checked often and long ones rarely.
   */
  recheckDelay(job: Job): number {
    const { STEP_RECHECK_MIN_MS: min, STEP_RECHECK_MAX_MS: max } = this.config;
    return Math.min(max, Math.max(min, (Date.now() - job.timestamp) / 2));
  }

  async enqueueResume(runId: string, round: number, action: 'continue' | 'stop', answerVersion: number): Promise<void> {
    const step: CoordinatorStep = { step: 'resume', runId, round, action };
    await this.coordinatorQueue.add('resume', step, this.stepOptions(jobIds.resume(runId, round, answerVersion)));
  }

  /** A task's job as BullMQ holds it: its payload and timings. */
  async taskJob(taskId: string): Promise<Job | undefined> {
    return this.subagentQueue.getJob(taskId);
  }

  /** A step's or task's job and where it stands; 'unknown' when there is no such job. */
  async jobState(queue: 'steps' | 'tasks', jobId: string): Promise<{ job?: Job; state: JobState | 'unknown' }> {
    const job = await (queue === 'steps' ? this.coordinatorQueue : this.subagentQueue).getJob(jobId);
    return job ? { job, state: await job.getState() } : { state: 'unknown' };
  }

  /** Removes a cancelled run's waiting steps and the tasks not yet started; active ones finish unseen. */
  async withdraw(queue: 'steps' | 'tasks', jobIds: string[]): Promise<void> {
    for (const jobId of jobIds) {
      try {
        const { job, state } = await this.jobState(queue, jobId);
        if (job && ['waiting', 'delayed', 'prioritized'].includes(state)) await job.remove();
      } catch (err) {
        this.logger.debug(`withdraw ${jobId}: ${(err as Error).message}`);
      }
    }
  }
}
