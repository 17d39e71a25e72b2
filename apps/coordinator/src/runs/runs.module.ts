import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { EventsModule } from '../events/events.module';
import { LedgerModule } from '../ledger/ledger.module';
import { ResultCheckService } from '../ledger/result-check.service';
import { ResultIntakeService } from '../ledger/result-intake.service';
import { QueuesModule } from '../queues/queues.module';
import { CoordinatorStepsProcessor } from './coordinator-steps.processor';
import { RunStore } from './run-store';
import { RunTransitions } from './run-transitions';
import { RunsService } from './runs.service';
import { DeploymentJudgeSwitch } from '../judge/deployment-judge-switch';
import { RoundJudgeService } from '../judge/round-judge.service';
import { MetricsService } from '../metrics/metrics.service';
import { FinalizeStep } from './steps/finalize.step';
import { PendingDispatch } from './steps/pending-dispatch';
import { ResumeStep } from './steps/resume.step';
import { RoundDecision } from './steps/round-decision';
import { PlanStep } from './steps/plan.step';
import { RoundStep } from './steps/round.step';
import { TaskProgressListener } from './task-progress.listener';
import { QuotasModule } from '../quotas/quotas.module';
import { RunStreamsService } from './run-streams.service';
import { RunIndex } from './run-index';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { ProviderOutageWatch } from './provider-outage-watch.service';
import { OutageWaitingRuns } from '../breaker/outage-waiting-runs';
import { RunWaitingService } from '../breaker/run-waiting.service';
import { JudgeHealthService } from '../judge/judge-health.service';
import { AutoApproveSchedule } from './plan-review/auto-approve-schedule';
import { AutoApprovals } from './plan-review/auto-approvals';
import { PlanRevisions } from './plan-review/plan-revisions';

@Module({
  imports: [DiscoveryModule, QueuesModule, QuotasModule, EventsModule, LedgerModule, WebhooksModule],
  providers: [
    RunStore,
    RunTransitions,
    RunsService,
    RunIndex,
    RunStreamsService,
    ResultIntakeService,
    ResultCheckService,
    MetricsService,
    RoundJudgeService,
    DeploymentJudgeSwitch,
    RoundDecision,
    PendingDispatch,
    ResumeStep,
    PlanStep,
    RoundStep,
    FinalizeStep,
    CoordinatorStepsProcessor,
    TaskProgressListener,
    RunWaitingService,
    ProviderOutageWatch,
    OutageWaitingRuns,
    JudgeHealthService,
    AutoApproveSchedule,
    AutoApprovals,
    PlanRevisions,
  ],
  exports: [RunWaitingService, WebhooksModule, DeploymentJudgeSwitch, RunsService, RunStreamsService, QuotasModule, RunStore, MetricsService, EventsModule, QueuesModule],
})
export class RunsModule {}
