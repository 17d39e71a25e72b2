import { Inject, Injectable } from '@nestjs/common';
import { EngineFactory } from '@orrery/engines';
import { type TaskEstimate } from '@orrery/engine';
import type { Run } from '@orrery/protocol';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../../config/coordinator-config';
import { RunEventsService } from '../../events/run-events.service';
import { LedgerStore } from '../../ledger/ledger.store';
import { MetricsService } from '../../metrics/metrics.service';
import { buildRoundTasks, buildSynthesisTask } from '../../planning/task-builder';
import { writerBrief } from '../../planning/writer-brief';
import { TaskDispatcher } from '../../queues/task-dispatcher';
import { WebhookNotifier } from '../../webhooks/webhook-notifier.service';
import { RunTransitions } from '../run-transitions';
import { FinalizeStep } from './finalize.step';
import { StepHold } from '../../queues/step-hold';

/** Carries out what the run record says comes next: the next round's tasks, the writer, or the direct answer. */
@Injectable()
export class PendingDispatch {
  constructor(
    private readonly engines: EngineFactory,
    private readonly ledger: LedgerStore,
    private readonly events: RunEventsService,
    private readonly dispatcher: TaskDispatcher,
    private readonly transitions: RunTransitions,
    private readonly finalize: FinalizeStep,
    private readonly metrics: MetricsService,
    private readonly webhooks: WebhookNotifier,
    private readonly hold: StepHold,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  /** What the hub reserves per task: the engine's port says what its tasks take. */
  taskEstimate(run: Run): TaskEstimate {
    return this.engines.coordinator(run.engine).taskEstimate;
  }

  limits(run: Run) {
    return { findingsPerTask: this.config.FINDINGS_PER_TASK ?? this.engines.coordinator(run.engine).capabilities.findingsPerTask, maxCitations: this.config.MAX_CITATIONS, maxToolCallsPerTask: this.engines.config.TASK_MAX_TOOL_CALLS };
  }

  /** The run's new status, announced once (keyed). */
  async announce(run: Run): Promise<void> {
    if (run.status === 'synthesizing' || run.status === 'needs_review' || run.status === 'researching') {
      await this.events.append(run.id, `status:${run.status}:${run.rounds.length}`, 'run.status', { status: run.status });
    }
    if (run.status === 'needs_review') {
      this.metrics.escalation('L3');
      await this.webhooks.notify(run, 'run.needs_review');
    }
  }

  /** With deterministic job ids a repeat is a no-op. */
  async dispatch(run: Run): Promise<void> {
    if (run.status === 'synthesizing' && run.plan) {
      const findings = await this.ledger.findings(run.id);
      const leadWrites = this.engines.coordinator(run.engine).capabilities.leadWrites === true;
      if (run.plan.classification === 'straightforward' && !leadWrites) {
        // The answer's own evidence: a follow-up's ledger also holds inherited findings that bear on nothing asked.
        const planned = new Set(run.plan.subtopics.map((s) => s.id));
        const brought = new Set((await this.ledger.broughtBy(run.id)).filter((b) => planned.has(b.subtopicId)).map((b) => b.findingId));
        await this.finalize.completeDirect(run, findings.filter((f) => planned.has(f.subtopicId) || brought.has(f.id)));
        return;
      }
      const sources = await this.ledger.sources(run.id, [...new Set(findings.map((f) => f.sourceId))]);
      const brief = leadWrites ? writerBrief(run, run.plan, await this.ledger.reports(run.id)) : undefined;
      await this.dispatcher.dispatchSynthesis(run.id, buildSynthesisTask(run, run.rounds.length, run.plan, findings, sources, this.limits(run), brief));
      await this.hold.reached('writer.dispatched', run.id);
      return;
    }
    const last = run.rounds[run.rounds.length - 1];
    if (run.status !== 'researching' || !last || last.status !== 'dispatched') return;
    // A later round builds on the evidence so far: its tasks get the findings their subtopics extend.
    const evidence = last.n > 1 ? await this.ledger.findings(run.id) : [];
    const tasks = buildRoundTasks(run, last.n, await this.ledger.sourceIds(run.id), this.limits(run), evidence);
    // The bookkeeping and `round.started` come before the dispatch: they do not compete with the tasks'
    // results, and a coordinator killed right after the dispatch cannot lose the announcement (the round's
    // tasks may finish and its step run on another coordinator before this step is retried, and the retry
    // would then find the run past this round). A step killed before the dispatch is retried and dispatches.
    await this.transitions.recordTasks(run, last.n, tasks);
    await this.hold.reached('tasks.recorded', run.id);
    await this.transitions.announceRound(run, last.n, tasks);
    await this.hold.reached('round.announced', run.id);
    await this.dispatcher.dispatchRound(run.id, last.n, tasks);
    await this.hold.reached('round.dispatched', run.id);
  }
}
