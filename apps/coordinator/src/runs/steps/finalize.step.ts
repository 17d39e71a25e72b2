import { Inject, Injectable, Logger } from '@nestjs/common';
import { SynthesizeResultSchema, type SynthesizeResult } from '@orrery/protocol';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../../config/coordinator-config';
import { DecisionLogService } from '../../events/decision-log.service';
import { RunEventsService } from '../../events/run-events.service';
import { LedgerStore } from '../../ledger/ledger.store';
import { REDIS } from '../../redis/redis.module';
import { assembleReport, fallbackSections } from '../../report/report-assembler';
import { RunStore } from '../run-store';
import { RunTransitions } from '../run-transitions';
import { addUsage } from './plan.step';

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
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  async run(runId: string, job: Job): Promise<void> {
    let run = await this.store.require(runId);
    if (run.status !== 'synthesizing') return;
    const values = Object.values(await job.getChildrenValues());
    const parsed = values.length ? SynthesizeResultSchema.safeParse(typeof values[0] === 'string' ? JSON.parse(values[0]) : values[0]) : undefined;
    let written: SynthesizeResult;
    if (parsed?.success) {
      written = parsed.data;
      run = await this.store.mutate(runId, (r) => {
        r.counters.tasksCompleted += 1;
        r.usage = addUsage(r.usage, written.usage);
        return r;
      });
    } else {
      const why = parsed ? parsed.error.issues.map((i) => i.message).join('; ') : 'the writer task failed';
      this.logger.warn(`run ${runId}: ${why}; writing the report from the ledger`);
      await this.decisions.log(runId, 'finalize:fallback', {
        decisionType: 'fallback',
        level: 'L0',
        confidence: 1,
        conclusion: `writer unavailable (${why.slice(0, 300)}): report built from ledger findings`,
        signals: { writerResults: values.length },
      });
      written = fallbackSections(run, await this.ledger.findings(runId), this.config.MAX_CITATIONS);
    }
    const report = assembleReport(run, written, await this.ledger.sources(runId));
    await this.redis.set(this.store.keys.report(runId), JSON.stringify(report));
    const citations = report.sections.reduce((n, s) => n + s.paragraphs.reduce((m, p) => m + p.citations.length, 0), 0);
    await this.events.append(runId, 'report.ready', 'report.ready', { sections: report.sections.length, citations });
    await this.transitions.finish(runId, 'done');
  }
}
