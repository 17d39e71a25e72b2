import { Injectable } from '@nestjs/common';
import type { Decision } from '@orrery/protocol';
import type { EngineDecision } from '@orrery/engine';
import { type PreparedEvent, RunEventsService } from './run-events.service';

/** Every control decision becomes a structured run event. */
@Injectable()
export class DecisionLogService {
  constructor(private readonly events: RunEventsService) {}

  /** `key` makes the log idempotent when a step runs twice; returns null when it was logged already. */
  async log(runId: string, key: string, decision: EngineDecision, stateVersion?: number): Promise<Decision | null> {
    const full = this.full(runId, decision, stateVersion);
    return (await this.events.append(runId, `decision:${key}`, 'decision', { decision: full })) ? full : null;
  }

  /** The decision's event, for a script that writes it atomically with other state. */
  prepare(runId: string, key: string, decision: EngineDecision, stateVersion?: number): PreparedEvent {
    return this.events.prepare(runId, `decision:${key}`, 'decision', { decision: this.full(runId, decision, stateVersion) });
  }

  private full(runId: string, decision: EngineDecision, stateVersion?: number): Decision {
    return { ...decision, runId, ts: new Date().toISOString(), ...(stateVersion === undefined ? {} : { stateVersion }) };
  }

  async list(runId: string): Promise<Decision[]> {
    const events = await this.events.readAll(runId);
    return events.flatMap((e) => (e.type === 'decision' ? [e.decision] : []));
  }
}
