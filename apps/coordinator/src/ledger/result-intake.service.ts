import { Injectable } from '@nestjs/common';
import type { SearchResult } from '@orrery/protocol';
import { type PreparedEvent, RunEventsService } from '../events/run-events.service';
import { type IntakeRecord, LedgerStore } from './ledger.store';

/**
 * A checked search result enters the ledger here, with its verdict and its `task.completed` event, in one
 * atomic write keyed by task id: a result delivered twice (at-least-once) is merged once and announced once.
 */
@Injectable()
export class ResultIntakeService {
  constructor(
    private readonly ledger: LedgerStore,
    private readonly events: RunEventsService,
  ) {}

  /** `result` null: the verdict rejected everything, so only the verdict is written. */
  async accept(runId: string, round: number, taskId: string, verdict: PreparedEvent, result: SearchResult | null, subtopicId?: string): Promise<IntakeRecord> {
    if (!result) return this.ledger.intake(runId, taskId, verdict, null);
    // The researcher's own account, for the lead who writes: kept before the intake, so it is there once the findings are.
    if (result.report) await this.ledger.keepReport(runId, taskId, subtopicId ?? result.findings[0]?.subtopicId, result.report);
    const completed = this.events.prepare(runId, `task.completed:${taskId}`, 'task.completed', {
      round,
      taskId,
      findings: result.findings.length,
      newSources: 0,
    });
    return this.ledger.intake(runId, taskId, verdict, { sources: result.sources, findings: result.findings, completed });
  }
}
