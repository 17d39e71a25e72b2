import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { BreakerModule } from '../breaker/breaker.module';
import { CorporaModule } from '../corpora/corpora.module';
import { EnginesModule } from '../engines/engines.module';
import { EventsModule } from '../events/events.module';
import { JudgeModule } from '../judge/judge.module';
import { LedgerModule } from '../ledger/ledger.module';
import { MetricsModule } from '../metrics/metrics.module';
import { QueuesModule } from '../queues/queues.module';
import { QuotasModule } from '../quotas/quotas.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { CoordinatorStepsProcessor } from './coordinator-steps.processor';
import { AutoApproveSchedule } from './plan-review/auto-approve-schedule';
import { AutoApprovals } from './plan-review/auto-approvals';
import { PlanRevisions } from './plan-review/plan-revisions';
import { ProviderOutageWatch } from './provider-outage-watch.service';
import { RunIndex } from './run-index';
import { RunStore } from './run-store';
import { RunStreamsService } from './run-streams.service';
import { RunTransitions } from './run-transitions';
import { RunsService } from './runs.service';
import { FinalizeStep } from './steps/finalize.step';
import { PendingDispatch } from './steps/pending-dispatch';
import { PlanStep } from './steps/plan.step';
import { ResumeStep } from './steps/resume.step';
import { RoundDecision } from './steps/round-decision';
import { RoundStep } from './steps/round.step';
import { TaskProgressListener } from './task-progress.listener';

/** Runs: their store, their steps on the coordinator queue, plan review, and what every surface asks of a run. */
@Module({
  imports: [DiscoveryModule, EnginesModule, QueuesModule, QuotasModule, CorporaModule, EventsModule, LedgerModule, WebhooksModule, BreakerModule, JudgeModule, MetricsModule],
  providers: [
    RunStore,
    RunTransitions,
    RunsService,
    RunIndex,
    RunStreamsService,
    RoundDecision,
    PendingDispatch,
    ResumeStep,
    PlanStep,
    RoundStep,
    FinalizeStep,
    CoordinatorStepsProcessor,
    TaskProgressListener,
    ProviderOutageWatch,
    AutoApproveSchedule,
    AutoApprovals,
    PlanRevisions,
  ],
  exports: [RunsService, RunStreamsService, RunStore],
})
export class RunsModule {}
