import { Inject, Injectable, Logger } from '@nestjs/common';
import { type CoordinatorStep, type Finding, type Run, type SynthesizeResult, SynthesizeResultSchema, SynthesizeTaskSchema, clipText } from '@orrery/protocol';
import type { Job } from 'bullmq';
import { chargeTokens } from '../../budget';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../../config/coordinator-config';
import { DecisionLogService } from '../../events/decision-log.service';
import { logReportedDecisions } from '../../events/task-decisions';
import { RunEventsService } from '../../events/run-events.service';
import { LedgerStore } from '../../ledger/ledger.store';
import { MetricsService } from '../../metrics/metrics.service';
import { jobIds, roundOfTask } from '../../queues/job-ids';
import { StepChildren } from '../../queues/step-children';
import { TaskDispatcher } from '../../queues/task-dispatcher';
import { verdictOnReport } from '../../verdicts/verdict-on-report';
import { assembleReport, directAnswer, fallbackSections, isLeadWritten, keepsCitedParagraph } from '../../report/report-assembler';
import { RunStore } from '../run-store';
import { RunTransitions } from '../run-transitions';
import { addUsage, inPhase } from '../usage';
import { HandlesStep, type StepHandler } from './step-handler';
import { StepHold } from '../../queues/step-hold';

/** The last step: check the writer's citations against the ledger, store the report, end the run. */
@Injectable()
@HandlesStep('finalize')
export class FinalizeStep implements StepHandler<'finalize'> {
  private readonly logger = new Logger(FinalizeStep.name);
  constructor(
    private readonly store: RunStore,
    private readonly ledger: LedgerStore,
    private readonly decisions: DecisionLogService,
    private readonly events: RunEventsService,
    private readonly transitions: RunTransitions,
    private readonly metrics: MetricsService,
    private readonly children: StepChildren,
    private readonly dispatcher: TaskDispatcher,
    private readonly hold: StepHold,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  /** The parent of the writer's task: `attempt` 0 checks its first draft, 1 its corrected draft. */
  handle(step: Extract<CoordinatorStep, { step: 'finalize' }>, job: Job): Promise<void> {
    return this.run(step.runId, step.attempt ?? 0, job);
  }

  async run(runId: string, attempt: number, job: Job): Promise<void> {
    let run = await this.store.require(runId);
    // Re-delivered after a crash between ending the run and announcing it: finish() is idempotent and writes what is missing.
    if (run.status === 'done') await this.transitions.finish(runId, 'done');
    if (run.status !== 'synthesizing') return;
    const outcomes = await this.children.outcomes(job, [jobIds.write(runId, attempt)]);
    // Delivered outside its flow while the writer works: the flow's own parent runs once it is done.
    if (!outcomes) return;
    const settled = outcomes.completed;
    const values = settled.map((t) => t.value);
    const parsed = values.length ? SynthesizeResultSchema.safeParse(typeof values[0] === 'string' ? JSON.parse(values[0]) : values[0]) : undefined;
    let written: SynthesizeResult;
    if (parsed?.success) {
      const draft = parsed.data;
      await logReportedDecisions(this.decisions, runId, draft.taskId, roundOfTask(draft.taskId), draft.decisions);
      const findings = await this.ledger.findings(runId);
      const check = verdictOnReport(draft, { findings, sources: await this.ledger.sources(runId) }, attempt);
      const original = SynthesizeTaskSchema.safeParse(settled[0]?.job?.data);
      const retry = check.verdict === 'retry' && original.success ? { ...original.data, taskId: jobIds.write(runId, attempt + 1), context: { ...original.data.context, correction: check.correction! } } : undefined;
      run = await this.store.mutate(runId, (r) => {
        // Keyed by attempt, so a re-delivered step counts the draft (and dispatches its retry) once.
        const charged = chargeTokens(r.budgetLedger, attempt ? `synthesis-${attempt}` : 'synthesis', draft.usage);
        if (!charged.applied) return undefined;
        r.budgetLedger = charged.state;
        r.counters.tasksCompleted += 1;
        if (retry) r.counters.tasksDispatched += 1;
        r.usage = addUsage(r.usage, inPhase(draft.usage, 'writing'));
        return r;
      });
      await this.hold.reached('draft.checked', runId);
      this.metrics.taskOutcome('synthesize', check.verdict);
      await this.decisions.log(runId, `finalize:${attempt}:writer-verdict`, {
        decisionType: 'writer-verdict',
        level: 'L0',
        confidence: 0.95,
        conclusion: clipText(`${check.verdict}: ${check.issues.length ? check.issues.slice(0, 3).join('; ') : 'every paragraph and summary claim cites a finding of the ledger'}${check.verdict === 'discard' ? '; the report is built from the findings alone' : ''}`, 2000),
        signals: { attempt, verdict: check.verdict, issues: check.issues.length },
      });
      if (retry) {
        // The corrected draft is a task too, checked by the finalize step of its own attempt.
        await this.dispatcher.dispatchSynthesis(runId, retry, attempt + 1);
        return;
      }
      written = draft;
      // A lead's report that still fails keeps what checks out (the assembler drops the rest); only one with no cited
      // paragraph left, or a writer's draft of the old kind, becomes the findings alone.
      if (check.verdict !== 'pass' && !(isLeadWritten(draft) && keepsCitedParagraph(draft, findings, await this.ledger.sources(runId)))) {
        this.metrics.fallback('writer');
        written = fallbackSections(run, findings, this.config.MAX_CITATIONS);
      }
    } else {
      const why = parsed ? parsed.error.issues.map((i) => i.message).join('; ') : 'the writer task failed';
      this.logger.warn(`run ${runId}: ${why}; writing the report from the ledger`);
      this.metrics.taskOutcome('synthesize', 'failed');
      this.metrics.fallback('writer');
      await this.decisions.log(runId, 'finalize:fallback', {
        decisionType: 'fallback',
        level: 'L0',
        confidence: 1,
        conclusion: `writer unavailable (${clipText(why, 300)}): report built from ledger findings`,
        signals: { writerResults: values.length },
      });
      written = fallbackSections(run, await this.ledger.findings(runId), this.config.MAX_CITATIONS);
    }
    await this.complete(run, written);
  }

  /** A straightforward question: one search, then a direct answer built from its findings, no writer. */
  async completeDirect(run: Run, findings: Finding[]): Promise<void> {
    await this.complete(run, directAnswer(run, findings, this.config.MAX_CITATIONS));
  }

  private async complete(run: Run, written: SynthesizeResult): Promise<void> {
    const report = assembleReport(run, written, await this.ledger.sources(run.id));
    await this.store.saveReport(run.id, report);
    await this.hold.reached('report.stored', run.id);
    const citations = report.sections.reduce((n, s) => n + s.paragraphs.reduce((m, p) => m + p.citations.length, 0), 0);
    await this.events.append(run.id, 'report.ready', 'report.ready', { sections: report.sections.length, citations });
    await this.transitions.finish(run.id, 'done');
  }
}
