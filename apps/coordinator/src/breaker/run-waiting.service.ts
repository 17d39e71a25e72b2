import { Injectable } from '@nestjs/common';
import { type ProviderOutage, type Run, type RunWaiting, TERMINAL_RUN_STATUSES } from '@orrery/protocol';
import { FleetGate } from '../queues/fleet-gate';

/** Run states whose work goes on without the model provider: ended, or waiting for a person. */
const NOT_WAITING: readonly Run['status'][] = [...TERMINAL_RUN_STATUSES, 'needs_review'];

/**
 * Whether a run waits on the model provider: while the fleet's breaker is open, every run still at work waits, since
 * none of its model calls goes out and no worker takes its tasks. Read from Redis at each ask, so every surface and
 * every replica tells the same.
 */
@Injectable()
export class RunWaitingService {
  constructor(private readonly fleet: FleetGate) {}

  outage(): Promise<ProviderOutage | null> {
    return this.fleet.gate.outage().catch(() => null);
  }

  waitingOf(run: Pick<Run, 'status'>, outage: ProviderOutage | null): RunWaiting | undefined {
    if (!outage || NOT_WAITING.includes(run.status)) return undefined;
    return { reason: `the model provider is unavailable: ${outage.reason}; the run resumes when a probe gets through`, since: outage.since, outageId: outage.id };
  }

  /** The run as the API shows it: with `waiting` while it waits on the provider. */
  async view<T extends Pick<Run, 'status'>>(run: T): Promise<T & { waiting?: RunWaiting }> {
    const waiting = this.waitingOf(run, await this.outage());
    return waiting ? { ...run, waiting } : run;
  }
}
