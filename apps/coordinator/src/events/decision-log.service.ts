import { Injectable } from '@nestjs/common';
import type { Decision } from '@orrery/protocol';
import type { EngineDecision } from '@orrery/engines';
import { RunEventsService } from './run-events.service';

/** Every control decision becomes a structured run event. */
@Injectable()
export class DecisionLogService {
  constructor(private readonly events: RunEventsService) {}

  /** `key` makes the log idempotent when a step runs twice. */
  async log(runId: string, key: string, decision: EngineDecision, stateVersion?: number): Promise<Decision> {
    const full: Decision = { ...decision, runId, ts: new Date().toISOString(), ...(stateVersion === undefined ? {} : { stateVersion }) };
    await this.events.append(runId, `decision:${key}`, 'decision', { decision: full });
    return full;
  }

  async list(runId: string): Promise<Decision[]> {
    const events = await this.events.readAll(runId);
    return events.flatMap((e) => (e.type === 'decision' ? [e.decision] : []));
  }
}
