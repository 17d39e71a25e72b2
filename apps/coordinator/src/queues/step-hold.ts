import { Inject, Injectable, Logger } from '@nestjs/common';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import type { StepBoundary } from '../config/step-boundaries';

/**
 * The SIGTERM drill's hold (test/support/sigterm-drill.ts): with STEP_HOLD_AT naming a boundary, the first step to
 * reach it stays there, its job active, until the process exits (STEP_HOLD_UNTIL=exit) or until SIGTERM arrives, and
 * then goes on while the process shuts down (sigterm). Unset, it is one comparison.
 */
@Injectable()
export class StepHold {
  private readonly logger = new Logger(StepHold.name);
  private held = false;
  constructor(@Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig) {}

  async reached(boundary: StepBoundary, runId: string): Promise<void> {
    if (this.config.STEP_HOLD_AT !== boundary || this.held) return;
    this.held = true;
    this.logger.warn(`run ${runId}: held at ${boundary} (STEP_HOLD_AT) until ${this.config.STEP_HOLD_UNTIL}`);
    await new Promise<void>((resume) => {
      if (this.config.STEP_HOLD_UNTIL === 'sigterm') process.once('SIGTERM', () => resume());
    });
  }
}
