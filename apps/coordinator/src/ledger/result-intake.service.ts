import { Injectable, Logger } from '@nestjs/common';
import { type SearchResult, SearchResultSchema } from '@orrery/protocol';
import { RunEventsService } from '../events/run-events.service';
import { type MergeRecord, LedgerStore } from './ledger.store';

export type IntakeOutcome = { ok: true; result: SearchResult; merge: MergeRecord } | { ok: false; error: string };

/**
 * Every search result enters the ledger here, whether it is seen early (the queue's completed event)
 * or at the end of its round: merging is keyed by task id, so both paths together merge once.
 */
@Injectable()
export class ResultIntakeService {
  private readonly logger = new Logger(ResultIntakeService.name);
  constructor(
    private readonly ledger: LedgerStore,
    private readonly events: RunEventsService,
  ) {}

  async accept(runId: string, round: number, taskId: string, raw: unknown): Promise<IntakeOutcome> {
    const value = typeof raw === 'string' ? safeJson(raw) : raw;
    const parsed = SearchResultSchema.safeParse(value);
    if (!parsed.success || parsed.data.taskId !== taskId) {
      const error = parsed.success ? `result names task ${parsed.data.taskId}` : `invalid result: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`;
      this.logger.warn(`task ${taskId}: ${error}`);
      return { ok: false, error };
    }
    const result = parsed.data;
    const merge = await this.ledger.merge(runId, taskId, result.sources, result.findings);
    await this.events.append(runId, `task.completed:${taskId}`, 'task.completed', {
      round,
      taskId,
      findings: result.findings.length,
      newSources: merge.newSources,
    });
    return { ok: true, result, merge };
  }
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}
