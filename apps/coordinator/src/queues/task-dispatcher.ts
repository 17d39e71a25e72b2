import { InjectFlowProducer, InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { COORDINATOR_QUEUE, type CoordinatorStep, SUBAGENT_QUEUE, type SubagentTask } from '@orrery/protocol';
import { type FlowProducer, type Job, type JobsOptions, Queue } from 'bullmq';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { DispatchedTasks } from './dispatched-tasks';
import { jobIds } from './job-ids';

const DAY = 24 * 3600;

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
    @InjectFlowProducer('orrery-flows') private readonly flows: FlowProducer,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
    private readonly dispatched: DispatchedTasks,
  ) {
    for (const q of [coordinatorQueue, subagentQueue]) q.on('error', (err) => this.logger.warn(`queue ${q.name}: ${err.message}`));
    flows.on('error', (err) => this.logger.warn(`flow producer: ${err.message}`));
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
      // A child that fails after its retries must not leave the round waiting forever.
      ignoreDependencyOnFailure: true,
    };
  }

  async enqueuePlan(runId: string): Promise<void> {
    const step: CoordinatorStep = { step: 'plan', runId };
    await this.submissions.add('plan', step, this.stepOptions(jobIds.plan(runId)));
  }

  /** One round as a flow: the parent is the coordinator's next step, the children are the tasks. */
  async dispatchRound(runId: string, round: number, tasks: SubagentTask[]): Promise<void> {
    await this.dispatchFlow({ step: 'round', runId, round }, jobIds.round(runId, round), tasks);
  }

  async dispatchSynthesis(runId: string, task: SubagentTask): Promise<void> {
    await this.dispatchFlow({ step: 'finalize', runId }, jobIds.finalize(runId), [task]);
  }

  /** A retry of a round's failed results: a flow whose parent runs the same round step again. */
  async dispatchRetry(runId: string, round: number, retry: number, tasks: SubagentTask[]): Promise<void> {
    await this.dispatchFlow({ step: 'round', runId, round, retry }, jobIds.retry(runId, round, retry), tasks);
  }

  /** A coordinator step as the parent of subagent tasks: the step runs once every task has settled. */
  private async dispatchFlow(step: CoordinatorStep, stepJobId: string, tasks: SubagentTask[]): Promise<void> {
    this.dispatched.add(tasks);
    await this.flows.add({
      name: step.step,
      queueName: COORDINATOR_QUEUE,
      data: step,
      opts: this.stepOptions(stepJobId),
      children: tasks.map((task) => ({ name: task.kind, queueName: SUBAGENT_QUEUE, data: task, opts: this.taskOptions(task.taskId) })),
    });
  }

  async enqueueResume(runId: string, round: number, action: 'continue' | 'stop'): Promise<void> {
    const step: CoordinatorStep = { step: 'resume', runId, round, action };
    await this.coordinatorQueue.add('resume', step, this.stepOptions(jobIds.resume(runId, round)));
  }

  /** A task's job as BullMQ holds it: its payload and timings. */
  async taskJob(taskId: string): Promise<Job | undefined> {
    return this.subagentQueue.getJob(taskId);
  }

  /** Removes a cancelled run's waiting step and the tasks not yet started; active ones finish unseen. */
  async withdraw(jobId: string): Promise<void> {
    try {
      await this.coordinatorQueue.remove(jobId, { removeChildren: true });
    } catch (err) {
      this.logger.debug(`withdraw ${jobId}: ${(err as Error).message}`);
    }
  }
}
