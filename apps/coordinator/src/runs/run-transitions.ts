import { Inject, Injectable } from '@nestjs/common';
import { type Run, type RunStatus, type SubagentTask, TERMINAL_RUN_STATUSES } from '@orrery/protocol';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { RunEventsService } from '../events/run-events.service';
import { MetricsService } from '../metrics/metrics.service';
import { RunQuotas } from '../quotas/run-quotas.service';
import { WebhookNotifier } from '../webhooks/webhook-notifier.service';
import { RunStore } from './run-store';
import { StepHold } from '../queues/step-hold';
import { ProviderOutageWatch } from './provider-outage-watch.service';

/** Status changes and their events, written once each however often a step runs. */
@Injectable()
export class RunTransitions {
  constructor(
    private readonly store: RunStore,
    private readonly events: RunEventsService,
    private readonly metrics: MetricsService,
    private readonly quotas: RunQuotas,
    private readonly webhooks: WebhookNotifier,
    private readonly hold: StepHold,
    private readonly outageWatch: ProviderOutageWatch,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  async status(runId: string, status: RunStatus): Promise<Run> {
    const run = await this.store.mutate(runId, (r) => {
      if (r.status === status || TERMINAL_RUN_STATUSES.includes(r.status)) return undefined;
      r.status = status;
      return r;
    });
    if (run.status === status) await this.events.append(runId, `status:${status}`, 'run.status', { status });
    return run;
  }

  /** The round's task ids, written before they are dispatched (a re-dispatch with the same ids is a no-op). */
  async recordTasks(run: Run, round: number, tasks: SubagentTask[]): Promise<void> {
    await this.store.mutate(run.id, (r) => {
      const rec = r.rounds.find((x) => x.n === round);
      if (!rec || rec.taskIds.length) return undefined;
      rec.taskIds = tasks.map((t) => t.taskId);
      r.counters.tasksDispatched += tasks.length;
      return r;
    });
  }

  /** `round.started`, as the round's tasks are dispatched. */
  async announceRound(run: Run, round: number, tasks: SubagentTask[]): Promise<void> {
    const titles = new Map(run.plan?.subtopics.map((s) => [s.id, s.title]));
    await this.events.append(run.id, `round.started:${round}`, 'round.started', {
      round,
      tasks: tasks.map((t) => ({
        taskId: t.taskId,
        kind: t.kind,
        ...(t.kind === 'search' ? { subtopicId: t.subtopicId, title: titles.get(t.subtopicId) ?? t.query } : { title: 'report' }),
      })),
    });
  }

  /**
   * Ends a run; its keys then expire after the retention period. `apply` changes the record in the
   * same compare-and-set, so that a step delivered twice cannot count its work twice.
   */
  async finish(runId: string, status: 'done' | 'failed' | 'cancelled', error?: string, apply?: (run: Run) => void): Promise<Run> {
    let ended = false;
    const run = await this.store.mutate(runId, (r) => {
      ended = !TERMINAL_RUN_STATUSES.includes(r.status);
      if (!ended) return undefined;
      apply?.(r);
      r.status = status;
      r.finishedAt = new Date().toISOString();
      if (status === 'cancelled') r.cancelRequested = true;
      if (error) r.errors.push({ ts: r.finishedAt, step: 'run', message: error });
      return r;
    });
    if (ended) await this.hold.reached('run.ended', runId);
    if (run.status === status) {
      // Counted by the call that ended the run; a re-delivered step only writes the events still missing.
      if (ended) {
        await this.quotas.ended(run.owner, runId);
        this.metrics.runReached(status, (Date.now() - Date.parse(run.createdAt)) / 1000);
        this.metrics.runConsumed(run);
      }
      await this.outageWatch.goesOn(runId);
      await this.events.append(runId, `status:${status}`, 'run.status', { status });
      await this.events.append(runId, 'run.finished', 'run.finished', { status, ...(error ? { error } : {}) });
      if (status !== 'cancelled') await this.webhooks.notify(run, status === 'done' ? 'run.done' : 'run.failed');
      await this.store.expire(runId, this.config.RUN_RETENTION_SECONDS);
    }
    return run;
  }
}
