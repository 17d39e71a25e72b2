import { InjectQueue } from '@nestjs/bullmq';
import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { COORDINATOR_QUEUE, type CoordinatorStep, CoordinatorStepSchema } from '@orrery/protocol';
import { type Job, type Queue, UnrecoverableError, type Worker } from 'bullmq';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { ActiveJobs, inSpan, JobHandlers, withLogContext, workerOn } from '@orrery/runtime';
import { RunNotFoundError } from './run-store';
import { RunTransitions } from './run-transitions';
import { HandlesStep, STEP_KINDS, type StepHandler, type StepKind } from './steps/step-handler';

/**
 * Consumes the coordinator's own queue: any replica can advance any run, since runs live in Redis.
 * A replica that dies mid-step leaves its step locked; the stalled check (every lock period) hands
 * it to another replica, and steps are idempotent, so running one twice changes nothing.
 */
@Injectable()
export class CoordinatorStepsProcessor implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(CoordinatorStepsProcessor.name);
  private readonly active = new ActiveJobs();
  private handlers!: JobHandlers<StepKind, StepHandler>;
  private worker!: Worker;
  constructor(
    private readonly discovery: DiscoveryService,
    @InjectQueue(COORDINATOR_QUEUE) private readonly queue: Queue,
    private readonly transitions: RunTransitions,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  /** Each step kind's one handler, else the process does not start. */
  onModuleInit(): void {
    const handlers = this.discovery.getProviders({ metadataKey: HandlesStep.KEY }).map((w) => [this.discovery.getMetadataByDecorator(HandlesStep, w)!, w.instance as StepHandler] as const);
    this.handlers = new JobHandlers(COORDINATOR_QUEUE, STEP_KINDS, handlers);
  }

  /** The worker, its options from the config, takes steps once every module is initialised. */
  onApplicationBootstrap(): void {
    const lockMs = this.config.COORDINATOR_LOCK_MS;
    this.worker = workerOn(this.queue, (job, token) => this.process(job, token), { concurrency: this.config.COORDINATOR_CONCURRENCY, lockDuration: lockMs, stalledInterval: lockMs, maxStalledCount: 2 });
    this.worker.on('error', (err) => this.logger.warn(`coordinator worker: ${err.message}`));
    this.worker.on('failed', (job, err) => void this.onStepFailed(job, err).catch((e: Error) => this.logger.warn(`failed step: ${e.message}`)));
  }

  /**
   * A step that fails for good ends its run as failed, whatever failed it. The step's own errors do so in
   * `step`; a step BullMQ fails without running it (stalled more than maxStalledCount times: its process
   * kept dying, or kept its event loop busy past the lock) would otherwise leave the run waiting forever.
   */
  async onStepFailed(job: Job | undefined, err: Error): Promise<void> {
    const step = CoordinatorStepSchema.safeParse(job?.data);
    if (!job || !step.success) return;
    const final = err.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
    if (!final) return;
    await this.transitions.finish(step.data.runId, 'failed', `${step.data.step} failed: ${err.message}`).catch((e: unknown) => {
      if (!(e instanceof RunNotFoundError)) throw e;
    });
  }

  /** SIGTERM: finish the steps in hand within SHUTDOWN_GRACE_MS, else release them to other replicas. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.active.drain(this.worker, this.config.SHUTDOWN_GRACE_MS, this.logger);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.worker.close();
  }

  process(job: Job, token?: string): Promise<void> {
    return withLogContext({ runId: (job.data as { runId?: string }).runId, jobId: job.id }, () => this.active.track(job, token, () => this.step(job)));
  }

  private async step(job: Job): Promise<void> {
    const parsed = CoordinatorStepSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`invalid coordinator step: ${parsed.error.message}`);
    const step = parsed.data;
    try {
      await inSpan(`step ${step.step}`, stepAttributes(step, job), async () => {
        this.logger.debug(`run ${step.runId}: step ${step.step}${'round' in step ? ` (round ${step.round})` : ''}, attempt ${job.attemptsMade + 1}`);
        await this.handlers.for(step.step).handle(step, job);
      });
    } catch (err) {
      if (err instanceof RunNotFoundError) throw new UnrecoverableError(err.message);
      const attemptsLeft = (job.opts.attempts ?? 1) - job.attemptsMade - 1;
      this.logger.error(`run ${step.runId} step ${step.step}: ${(err as Error).stack ?? err}`);
      if (attemptsLeft <= 0) await this.transitions.finish(step.runId, 'failed', `${step.step} failed: ${(err as Error).message}`);
      throw err;
    }
  }
}

function stepAttributes(step: CoordinatorStep, job: Job): Record<string, string | number> {
  return { 'orrery.run_id': step.runId, 'orrery.step': step.step, 'orrery.job_id': job.id ?? '', ...('round' in step ? { 'orrery.round': step.round } : {}) };
}
