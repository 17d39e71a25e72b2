import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type ProviderOutage, type RunWaiting, TERMINAL_RUN_STATUSES } from '@orrery/protocol';
import { OutageWaitingRuns } from '../breaker/outage-waiting-runs';
import { RunWaitingService } from '../breaker/run-waiting.service';
import { DecisionLogService } from '../events/decision-log.service';
import { RunEventsService } from '../events/run-events.service';
import { TaskDispatcher } from '../queues/task-dispatcher';
import { WebhookNotifier } from '../webhooks/webhook-notifier.service';
import { RunStore } from './run-store';

/** How often a replica looks at the breaker (one HGETALL, one PTTL): soon enough that a run resumes visibly before it ends. */
const POLL_MS = 250;
/** Jobs looked at per queue and state to find the runs at work. */
const JOBS_SCANNED = 2000;

/**
 * Tells each run at work that it waits on the model provider, and that it goes on again: a `run.waiting` event, a
 * decision in its log and a `run.waiting` webhook when the breaker opens (and for a run that starts while it is open),
 * a `run.resumed` event and decision when the probe closes it. Every replica watches; the events' idempotency keys
 * (one per run and outage) keep one of each.
 */
@Injectable()
export class ProviderOutageWatch implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ProviderOutageWatch.name);
  private timer?: NodeJS.Timeout;
  private busy = false;
  private last?: ProviderOutage;

  constructor(
    private readonly waiting: RunWaitingService,
    private readonly dispatcher: TaskDispatcher,
    private readonly store: RunStore,
    private readonly events: RunEventsService,
    private readonly decisions: DecisionLogService,
    private readonly webhooks: WebhookNotifier,
    private readonly waitingRuns: OutageWaitingRuns,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), POLL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One look; public so a test can drive it. */
  async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const outage = await this.waiting.outage();
      if (this.last && this.last.id !== outage?.id) await this.resume(this.last);
      if (outage) await this.announce(outage);
      this.last = outage ?? undefined;
      if (!outage) await this.resumeLeftOver();
    } catch (err) {
      this.logger.warn(`provider breaker watch: ${(err as Error).message}`);
    } finally {
      this.busy = false;
    }
  }

  /** The runs with a step or a task in the queues: the ones at work. */
  private async runsAtWork(): Promise<string[]> {
    const ids = new Set<string>();
    for (const q of [this.dispatcher.coordinatorQueue, this.dispatcher.subagentQueue]) {
      const jobs = await q.getJobs(['active', 'waiting', 'delayed', 'prioritized', 'waiting-children'], 0, JOBS_SCANNED - 1);
      for (const j of jobs) {
        const runId = (j?.data as { runId?: unknown } | undefined)?.runId;
        if (typeof runId === 'string') ids.add(runId);
      }
    }
    return [...ids];
  }

  private async announce(outage: ProviderOutage): Promise<void> {
    const runIds = await this.runsAtWork();
    const runs = await this.store.getMany(runIds);
    for (const run of runs) {
      const waiting = run && this.waiting.waitingOf(run, outage);
      if (!run || !waiting) continue;
      const appended = await this.events.append(run.id, `waiting:${outage.id}`, 'run.waiting', { waiting });
      if (!appended) continue;
      await this.waitingRuns.add(outage.id, run.id);
      await this.decisions.log(run.id, `breaker-open:${outage.id}`, this.openDecision(waiting, outage));
      await this.webhooks.notify(run, 'run.waiting', waiting);
      this.logger.log(`run ${run.id} waits on the model provider: ${outage.reason}`);
    }
  }

  private async resume(outage: ProviderOutage): Promise<void> {
    const runIds = await this.waitingRuns.runsOf(outage.id);
    const runs = await this.store.getMany(runIds);
    for (const [i, runId] of runIds.entries()) {
      // A run that ended meanwhile said so itself before its last event (goesOn).
      const run = runs[i];
      if (run && !TERMINAL_RUN_STATUSES.includes(run.status)) await this.tellResumed(runId, outage.id, outage.since, outage.failedProbes);
    }
    await this.waitingRuns.clear(outage.id);
  }

  /**
   * Called as a run ends: a run told it waits on an outage that is over says it went on before it says it ended. The
   * probe's answer can let a run finish in less time than this watch takes to look.
   */
  async goesOn(runId: string): Promise<void> {
    // Nearly every run ends with no outage on record: one set read, and the breaker is not asked.
    const outages = await this.waitingRuns.outages();
    if (outages.length === 0) return;
    const current = await this.waiting.outage();
    for (const id of outages) {
      if (id === current?.id || !(await this.waitingRuns.runsOf(id)).includes(runId)) continue;
      await this.tellResumed(runId, id, new Date(Number(id)).toISOString(), undefined);
    }
  }

  private async tellResumed(runId: string, outageId: string, since: string, failedProbes: number | undefined): Promise<void> {
    const waitedMs = Math.max(0, Date.now() - Date.parse(since));
    const appended = await this.events.append(runId, `resumed:${outageId}`, 'run.resumed', { outageId, waitedMs });
    if (!appended) return;
    await this.decisions.log(runId, `breaker-closed:${outageId}`, {
      decisionType: 'provider-breaker',
      level: 'L0',
      confidence: 1,
      conclusion: `the model provider answers again (a probe got through): the run goes on after waiting ${Math.round(waitedMs / 1000)} s`,
      signals: { outageId, waitedMs, ...(failedProbes !== undefined ? { failedProbes } : {}) },
    });
  }

  /** An outage another replica saw open and this one never did (it started after, or missed the close). */
  private async resumeLeftOver(): Promise<void> {
    for (const id of await this.waitingRuns.outages()) {
      await this.resume({ id, since: new Date(Number(id)).toISOString(), reason: '', state: 'half-open', failedProbes: 0 });
    }
  }

  private openDecision(waiting: RunWaiting, outage: ProviderOutage) {
    return {
      decisionType: 'provider-breaker',
      level: 'L0' as const,
      confidence: 1,
      conclusion: `wait: ${waiting.reason}. No task is taken or counted failed meanwhile; one probe per cool-down checks the provider`,
      signals: { outageId: outage.id, reason: outage.reason, since: outage.since, state: outage.state, failedProbes: outage.failedProbes },
    };
  }
}
