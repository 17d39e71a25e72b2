import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { LedgerModule } from '../ledger/ledger.module';
import { ResultIntakeService } from '../ledger/result-intake.service';
import { QueuesModule } from '../queues/queues.module';
import { CoordinatorStepsProcessor } from './coordinator-steps.processor';
import { RunStore } from './run-store';
import { RunTransitions } from './run-transitions';
import { RunsService } from './runs.service';
import { FinalizeStep } from './steps/finalize.step';
import { PlanStep } from './steps/plan.step';
import { RoundStep } from './steps/round.step';
import { TaskProgressListener } from './task-progress.listener';

@Module({
  imports: [QueuesModule, EventsModule, LedgerModule],
  providers: [RunStore, RunTransitions, RunsService, ResultIntakeService, PlanStep, RoundStep, FinalizeStep, CoordinatorStepsProcessor, TaskProgressListener],
  exports: [RunsService, RunStore, EventsModule, QueuesModule],
})
export class RunsModule {}
