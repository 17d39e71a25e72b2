import { Processor, WorkerHost } from '@nestjs/bullmq';
import { type BeforeApplicationShutdown, Inject, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { COORDINATOR_QUEUE, type CoordinatorStep, CoordinatorStepSchema } from '@orrery/protocol';
import { type Job, UnrecoverableError } from 'bullmq';
import { COORDINATOR_CONFIG, type CoordinatorConfig, loadCoordinatorConfig } from '../config/coordinator-config';
import { ActiveJobs, inSpan, withLogContext } from '@orrery/runtime';
import { RunNotFoundError, RunStore } from './run-store';
import { RunTransitions } from './run-transitions';
import { FinalizeStep } from './steps/finalize.step';
import { PlanStep } from './steps/plan.step';
import { ResumeStep } from './steps/resume.step';
import { AutoApprovals } from '../plan-review/auto-approvals';
import { RoundStep } from './steps/round.step';

// Worker options are fixed when the class is decorated, so the lock is read from the environment here.
const stepLockMs = loadCoordinatorConfig().COORDINATOR_LOCK_MS;

/**
 * Consumes the coordinator's own queue: any replica can advance any run, since runs live in Redis.
 * A replica that dies mid-step leaves its step locked; the stalled check (every lock period) hands
 * it to another replica, and steps are idempotent, so running one twice changes nothing.
 */
@Processor(COORDINATOR_QUEUE, { lockDuration: stepLockMs, stalledInterval: stepLockMs, maxStalledCount: 2 })
export class CoordinatorStepsProcessor extends WorkerHost implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(CoordinatorStepsProcessor.name);
  private readonly active = new ActiveJobs();
  constructor(
    private readonly planStep: PlanStep,
    private readonly roundStep: RoundStep,
    private readonly finalizeStep: FinalizeStep,
    private readonly resumeStep: ResumeStep,
    private readonly autoApprovals: AutoApprovals,
    private readonly store: RunStore,
    private readonly transitions: RunTransitions,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.config.COORDINATOR_CONCURRENCY;
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
        if (step.step === 'plan') await this.planStep.run(step.runId);
        else if (step.step === 'round') await this.roundStep.run(step.runId, step.round, step.retry ?? 0, job);
        else if (step.step === 'auto-approve') await this.autoApprovals.fire(step.runId, step.revision);
        else if (step.step === 'resume') await this.resumeStep.run(await this.store.require(step.runId), step.round, step.action);
        else await this.finalizeStep.run(step.runId, step.attempt ?? 0, job);
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
