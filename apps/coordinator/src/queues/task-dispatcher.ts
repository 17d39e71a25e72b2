import { InjectFlowProducer, InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { COORDINATOR_QUEUE, type CoordinatorStep, SUBAGENT_QUEUE, type SubagentTask } from '@orrery/protocol';
import { bullConnection, bullTelemetry, closeBullConnection, queuePrefix } from '@orrery/runtime';
import { type ConnectionOptions, type FlowProducer, type Job, type JobState, type JobsOptions, Queue } from 'bullmq';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { DispatchedTasks } from './dispatched-tasks';
import { jobIds } from './job-ids';

const DAY = 24 * 3600;
export const ROUND_FLOWS = 'orrery-rounds';

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
  private readonly submissionConnection: ConnectionOptions;

  constructor(
    @InjectQueue(COORDINATOR_QUEUE) readonly coordinatorQueue: Queue,
    @InjectQueue(SUBAGENT_QUEUE) readonly subagentQueue: Queue,
    @InjectFlowProducer(ROUND_FLOWS) private readonly flows: FlowProducer,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
    private readonly dispatched: DispatchedTasks,
  ) {
    for (const q of [coordinatorQueue, subagentQueue]) q.on('error', (err) => this.logger.warn(`queue ${q.name}: ${err.message}`));
    flows.on('error', (err) => this.logger.warn(`flow producer: ${err.message}`));
    this.submissionConnection = bullConnection(config, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    this.submissions = new Queue(COORDINATOR_QUEUE, { connection: this.submissionConnection, prefix: queuePrefix(config.QUEUE_PREFIX), telemetry: bullTelemetry() });
    this.submissions.on('error', (err) => this.logger.warn(`submission queue: ${err.message}`));
  }

  /** Connected before the API takes requests, so that the first POST does not meet a connection still opening. */
  async onModuleInit(): Promise<void> {
    await this.submissions.waitUntilReady().catch((err) => this.logger.warn(`submission queue: ${(err as Error).message}`));
  }

  async onModuleDestroy(): Promise<void> {
    await this.submissions.close().catch(() => undefined);
    closeBullConnection(this.submissionConnection);
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
      // A task that fails for good moves to its step's failed dependencies: the step runs without it, and reads
      // its reason with getIgnoredChildrenFailures(). A removed task leaves the step's dependencies (BullMQ's
      // removeParentDependencyKey), so neither a failed nor a discarded task can hang its round.
      ignoreDependencyOnFailure: true,
    };
  }

  async enqueuePlan(runId: string): Promise<void> {
    const step: CoordinatorStep = { step: 'plan', runId };
    await this.submissions.add('plan', step, this.stepOptions(jobIds.plan(runId)));
  }

  /** One round as a flow: the parent is the round step, the children are its tasks. */
  async dispatchRound(runId: string, round: number, tasks: SubagentTask[]): Promise<void> {
    await this.dispatchFlow({ step: 'round', runId, round }, jobIds.round(runId, round), tasks);
  }

  async dispatchSynthesis(runId: string, task: SubagentTask, attempt = 0): Promise<void> {
    await this.dispatchFlow({ step: 'finalize', runId, ...(attempt ? { attempt } : {}) }, jobIds.finalize(runId, attempt), [task]);
  }

  /** A retry of a round's failed results: a flow whose parent runs the same round step again, on the retried tasks. */
  async dispatchRetry(runId: string, round: number, retry: number, tasks: SubagentTask[]): Promise<void> {
    await this.dispatchFlow({ step: 'round', runId, round, retry }, jobIds.retry(runId, round, retry), tasks);
  }

  /**
   * A coordinator step as the parent of subagent tasks: BullMQ holds it in `waiting-children` and hands it to
   * a coordinator once every task has completed or failed for good. The flow is added in one transaction, so a
   * coordinator killed mid-dispatch leaves all of it or none, and its step's retry dispatches again.
   */
  private async dispatchFlow(step: CoordinatorStep, stepJobId: string, tasks: SubagentTask[]): Promise<void> {
    this.dispatched.add(tasks);
    // Once per step: added again, a flow would put a task that already failed for good back among its step's
    // pending dependencies (BullMQ re-adds an existing child that is not completed), and the step would wait forever.
    if (await this.coordinatorQueue.getJob(stepJobId)) return;
    await this.flows.add({
      name: step.step,
      queueName: COORDINATOR_QUEUE,
      data: step,
      opts: this.stepOptions(stepJobId),
      children: tasks.map((task) => ({ name: task.kind, queueName: SUBAGENT_QUEUE, data: task, opts: this.taskOptions(task.taskId) })),
    });
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

  /**
   * Removes a cancelled run's waiting steps and the tasks not yet started; active ones finish unseen. A step
   * still waiting on its tasks stays: once they are gone or done it runs, finds the run cancelled, and stops.
   */
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
