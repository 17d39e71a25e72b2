import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { COORDINATOR_QUEUE, CoordinatorStepSchema } from '@orrery/protocol';
import { type Job, UnrecoverableError } from 'bullmq';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { RunNotFoundError, RunStore } from './run-store';
import { RunTransitions } from './run-transitions';
import { FinalizeStep } from './steps/finalize.step';
import { PlanStep } from './steps/plan.step';
import { RoundAdvance } from './steps/round-advance.service';
import { RoundStep } from './steps/round.step';

/** Consumes the coordinator's own queue: any replica can advance any run, since runs live in Redis. */
@Processor(COORDINATOR_QUEUE)
export class CoordinatorStepsProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(CoordinatorStepsProcessor.name);
  constructor(
    private readonly planStep: PlanStep,
    private readonly roundStep: RoundStep,
    private readonly finalizeStep: FinalizeStep,
    private readonly advance: RoundAdvance,
    private readonly store: RunStore,
    private readonly transitions: RunTransitions,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.config.COORDINATOR_CONCURRENCY;
    this.worker.on('error', (err) => this.logger.warn(`coordinator worker: ${err.message}`));
  }

  async process(job: Job): Promise<void> {
    const parsed = CoordinatorStepSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`invalid coordinator step: ${parsed.error.message}`);
    const step = parsed.data;
    try {
      if (step.step === 'plan') await this.planStep.run(step.runId);
      else if (step.step === 'round') await this.roundStep.run(step.runId, step.round, job, step.retry ?? 0);
      else if (step.step === 'resume') await this.advance.resume(await this.store.require(step.runId), step.round, step.action);
      else await this.finalizeStep.run(step.runId, job);
    } catch (err) {
      if (err instanceof RunNotFoundError) throw new UnrecoverableError(err.message);
      const attemptsLeft = (job.opts.attempts ?? 1) - job.attemptsMade - 1;
      this.logger.error(`run ${step.runId} step ${step.step}: ${(err as Error).stack ?? err}`);
      if (attemptsLeft <= 0) await this.transitions.finish(step.runId, 'failed', `${step.step} failed: ${(err as Error).message}`);
      throw err;
    }
  }
}
