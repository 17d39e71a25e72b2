import { Inject, Injectable, Logger } from '@nestjs/common';
import { type Finding, type Run, type SynthesizeResult, SynthesizeResultSchema } from '@orrery/protocol';
import type { Redis } from 'ioredis';
import { chargeTokens } from '../../budget';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../../config/coordinator-config';
import { DecisionLogService } from '../../events/decision-log.service';
import { logReportedDecisions } from '../../events/task-decisions';
import { RunEventsService } from '../../events/run-events.service';
import { LedgerStore } from '../../ledger/ledger.store';
import { MetricsService } from '../../metrics/metrics.service';
import { jobIds, roundOfTask } from '../../queues/job-ids';
import { TaskBarrier } from '../../queues/task-barrier';
import { REDIS } from '../../redis/redis.module';
import { assembleReport, directAnswer, fallbackSections } from '../../report/report-assembler';
import { RunStore } from '../run-store';
import { RunTransitions } from '../run-transitions';
import { addUsage } from '../usage';

/** The last step: check the writer's citations against the ledger, store the report, end the run. */
@Injectable()
export class FinalizeStep {
  private readonly logger = new Logger(FinalizeStep.name);
  constructor(
    private readonly store: RunStore,
    private readonly ledger: LedgerStore,
    private readonly decisions: DecisionLogService,
    private readonly events: RunEventsService,
    private readonly transitions: RunTransitions,
    private readonly metrics: MetricsService,
    private readonly barrier: TaskBarrier,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  async run(runId: string): Promise<void> {
    let run = await this.store.require(runId);
    // Re-delivered after a crash between ending the run and announcing it: finish() is idempotent and writes what is missing.
    if (run.status === 'done') await this.transitions.finish(runId, 'done');
    if (run.status !== 'synthesizing') return;
    const values = (await this.barrier.require([jobIds.write(runId)])).completed.map((t) => t.value);
    const parsed = values.length ? SynthesizeResultSchema.safeParse(typeof values[0] === 'string' ? JSON.parse(values[0]) : values[0]) : undefined;
    let written: SynthesizeResult;
    if (parsed?.success) {
      written = parsed.data;
      await logReportedDecisions(this.decisions, runId, written.taskId, roundOfTask(written.taskId), written.decisions);
      this.metrics.taskOutcome('synthesize', 'pass');
      run = await this.store.mutate(runId, (r) => {
        const charged = chargeTokens(r.budgetLedger, 'synthesis', written.usage);
        if (!charged.applied) return undefined;
        r.budgetLedger = charged.state;
        r.counters.tasksCompleted += 1;
        r.usage = addUsage(r.usage, written.usage);
        return r;
      });
    } else {
      const why = parsed ? parsed.error.issues.map((i) => i.message).join('; ') : 'the writer task failed';
      this.logger.warn(`run ${runId}: ${why}; writing the report from the ledger`);
      this.metrics.taskOutcome('synthesize', 'failed');
      this.metrics.fallback('writer');
      await this.decisions.log(runId, 'finalize:fallback', {
        decisionType: 'fallback',
        level: 'L0',
        confidence: 1,
        conclusion: `writer unavailable (${why.slice(0, 300)}): report built from ledger findings`,
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
    await this.redis.set(this.store.keys.report(run.id), JSON.stringify(report), 'EX', this.config.UNFINISHED_RUN_TTL_SECONDS);
    const citations = report.sections.reduce((n, s) => n + s.paragraphs.reduce((m, p) => m + p.citations.length, 0), 0);
    await this.events.append(run.id, 'report.ready', 'report.ready', { sections: report.sections.length, citations });
    await this.transitions.finish(run.id, 'done');
  }
}
