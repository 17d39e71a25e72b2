import { Injectable } from '@nestjs/common';
import type { SearchResult } from '@orrery/protocol';
import { RunEventsService } from '../events/run-events.service';
import { type MergeRecord, LedgerStore } from './ledger.store';

/**
 * A checked search result enters the ledger here. Merging is keyed by task id, so a result delivered
 * twice (at-least-once) is merged once and its event written once.
 */
@Injectable()
export class ResultIntakeService {
  constructor(
    private readonly ledger: LedgerStore,
    private readonly events: RunEventsService,
  ) {}

  async accept(runId: string, round: number, taskId: string, result: SearchResult): Promise<MergeRecord> {
    const merge = await this.ledger.merge(runId, taskId, result.sources, result.findings);
    await this.events.append(runId, `task.completed:${taskId}`, 'task.completed', {
      round,
      taskId,
      findings: result.findings.length,
      newSources: merge.newSources,
    });
    return merge;
  }
}
