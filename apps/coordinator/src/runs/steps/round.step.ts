import { Injectable } from '@nestjs/common';
import { type CoordinatorStep, type Finding, type Round, type Run, SearchTaskSchema, clipText } from '@orrery/protocol';
import type { Job } from 'bullmq';
import { reserve, settle } from '../../budget';
import { type RoundFigures, roundFigures } from '../../coverage/round-figures';
import { DecisionLogService } from '../../events/decision-log.service';
import { RunEventsService } from '../../events/run-events.service';
import { LedgerStore } from '../../ledger/ledger.store';
import { ResultCheckService, type TaskOutcome, ZERO_USAGE } from '../../ledger/result-check.service';
import { MetricsService } from '../../metrics/metrics.service';
import { attemptOfTask } from '../../queues/job-ids';
import { StepChildren } from '../../queues/step-children';
import { TaskDispatcher } from '../../queues/task-dispatcher';
import { taskBudget } from '../../planning/task-builder';
import { RunStore } from '../run-store';
import { addUsage, inPhase } from '../usage';
import { applyMove } from '../apply-move';
import { PendingDispatch } from './pending-dispatch';
import { RoundDecision } from './round-decision';
import { HandlesStep, type StepHandler } from './step-handler';
import { StepHold } from '../../queues/step-hold';

export class StaleStateError extends Error {
  constructor(readonly currentVersion: number) {
    super(`run state moved on to version ${currentVersion}`);
  }
}

const reservationOf = (round: number, taskId: string) => {
  const attempt = attemptOfTask(taskId);
  return attempt ? `round-${round}-retry-${attempt}` : `round-${round}`;
};

/**
 * Runs when a round's tasks are all done (or failed after their retries): it is their flow's parent. Give each result a verdict,
 * merge what passes into the ledger, re-dispatch what deserves a retry, then measure and decide.
 */
@Injectable()
@HandlesStep('round')
export class RoundStep implements StepHandler<'round'> {
  constructor(
    private readonly store: RunStore,
    private readonly results: ResultCheckService,
    private readonly ledger: LedgerStore,
    private readonly decisions: DecisionLogService,
    private readonly events: RunEventsService,
    private readonly dispatcher: TaskDispatcher,
    private readonly children: StepChildren,
    private readonly decision: RoundDecision,
    private readonly pending: PendingDispatch,
    private readonly metrics: MetricsService,
    private readonly hold: StepHold,
  ) {}

  /** `retry` 0 is the parent of the round's first tasks, N of its N-th retries (the tasks of attempt N). */
  handle(step: Extract<CoordinatorStep, { step: 'round' }>, job: Job): Promise<void> {
    return this.run(step.runId, step.round, step.retry ?? 0, job);
  }

  async run(runId: string, round: number, retry: number, job: Job): Promise<void> {
    let run = await this.store.require(runId);
    const rec = run.rounds.find((r) => r.n === round);
    // Re-delivered after a crash between the round's write and its events: write what is missing (keyed, so once).
    if (rec?.status === 'completed') await this.reannounce(run, rec);
    if (run.status !== 'researching' || !run.plan || !rec || rec.status === 'completed') return this.pending.dispatch(run);

    const outcomes = await this.collect(run, round, job, rec.taskIds.filter((t) => attemptOfTask(t) === retry));
    // A step delivered outside its flow while the tasks are out: the flow's own parent runs once they settle.
    if (!outcomes) return;
    await this.hold.reached('results.collected', runId);
    const retries = outcomes.flatMap((o) => (o.retry ? [o.retry] : []));
    const estimate = this.pending.taskEstimate(run);
    run = await this.store.mutate(runId, (r) => {
      const x = r.rounds.find((y) => y.n === round);
      if (!x || x.status === 'completed') return undefined;
      let changed = false;
      const now = new Date().toISOString();
      for (const o of outcomes) {
        // The budget settlement is keyed by task id: it is also what makes this update idempotent.
        const s = settle(r.budgetLedger, { taskId: o.taskId, reservationId: reservationOf(round, o.taskId), usage: o.usage });
        if (!s.applied) continue;
        changed = true;
        r.budgetLedger = s.state;
        x.completed += o.ok ? 1 : 0;
        x.failed += o.ok ? 0 : 1;
        x.returned += o.returned;
        x.newFindings += o.newFindings;
        x.newSources += o.newSources;
        r.usage = addUsage(r.usage, inPhase(o.usage, 'research'));
        r.counters.tasksCompleted += o.ok ? 1 : 0;
        r.counters.tasksFailed += o.ok ? 0 : 1;
        if (o.error) r.errors.push({ ts: now, step: `round ${round}`, message: clipText(`${o.taskId}: ${o.error}`, 2000) });
      }
      const fresh = retries.filter((t) => !x.taskIds.includes(t.taskId));
      if (fresh.length) {
        const res = reserve(
          r.budgetLedger,
          { id: `round-${round}-retry-${retry + 1}`, tasks: fresh.length, tokens: estimate.tokens * fresh.length, costUsd: estimate.costUsd * fresh.length },
          { mode: 'trim', nowMs: Date.now() },
        );
        if (res.ok) {
          r.budgetLedger = res.state;
          const granted = fresh.slice(0, res.reservation.granted.tasks).map((t) => t.taskId);
          x.taskIds.push(...granted);
          r.counters.tasksDispatched += granted.length;
          changed = true;
        }
      }
      return changed ? r : undefined;
    });
    await this.hold.reached('results.merged', runId);

    const current = run.rounds.find((r) => r.n === round)!;
    // Another execution of this step (a duplicate delivery, or one whose lock lapsed) completed the round while
    // this one collected: its move stands. Deciding again here would judge round `round` on the next round's
    // state (its tasks reserved, one more round started) and log a decision no applied move made.
    if (current.status === 'completed') {
      await this.reannounce(run, current);
      return this.pending.dispatch(run);
    }
    // A retry carries its own reservation's share, not the first attempt's.
    const retryBudget = taskBudget(run, `round-${round}-retry-${retry + 1}`, this.pending.limits(run));
    const pending = retries.filter((t) => current.taskIds.includes(t.taskId)).map((t) => (retryBudget ? { ...t, budget: retryBudget } : t));
    if (pending.length && run.status === 'researching') {
      const titles = new Map(run.plan?.subtopics.map((x) => [x.id, x.title]));
      await this.events.append(runId, `round.started:${round}:retry${retry + 1}`, 'round.started', {
        round,
        tasks: pending.map((t) => ({ taskId: t.taskId, kind: t.kind, subtopicId: t.subtopicId, title: `retry: ${titles.get(t.subtopicId) ?? t.query}` })),
      });
      await this.dispatcher.dispatchRetry(runId, round, retry + 1, pending);
      return;
    }
    await this.complete(run, round);
  }

  /** Verdicts and merges for every task of this step (undefined while any is out); idempotent per task id. */
  private async collect(run: Run, round: number, step: Job, taskIds: string[]): Promise<TaskOutcome[] | undefined> {
    const settled = await this.children.outcomes(step, taskIds);
    if (!settled) return undefined;
    const outcomes: TaskOutcome[] = await Promise.all(
      settled.completed.map(async ({ taskId, value, job }): Promise<TaskOutcome> => {
        if (job?.processedOn && job.finishedOn) this.metrics.taskDuration('search', (job.finishedOn - job.processedOn) / 1000);
        const task = SearchTaskSchema.safeParse(job?.data);
        if (!task.success) return { taskId, ok: false, returned: 0, newFindings: 0, newSources: 0, usage: ZERO_USAGE, error: job ? 'the task payload is invalid; result not checked' : 'the task job is gone (beyond JOB_RETENTION_COUNT); its result was not checked' };
        return this.results.check(run.id, round, task.data, value, run.stateVersion);
      }),
    );
    for (const { taskId, reason } of settled.failed) {
      const error = clipText(reason, 2000);
      await this.events.append(run.id, `task.failed:${taskId}`, 'task.failed', { round, taskId, error });
      this.metrics.taskOutcome('search', 'failed');
      outcomes.push({ taskId, ok: false, returned: 0, newFindings: 0, newSources: 0, usage: ZERO_USAGE, error });
    }
    return outcomes;
  }

  /** All tasks of the round are settled: measure coverage and novelty, judge, and move on. */
  private async complete(run: Run, round: number): Promise<void> {
    const rec = run.rounds.find((r) => r.n === round)!;
    const [findings, brought] = await Promise.all([this.ledger.findings(run.id), this.ledger.broughtBy(run.id)]);
    const figures = roundFigures(run.plan!, findings, brought, rec.returned, rec.newFindings);
    try {
      await this.afterRound(run, rec, figures, findings);
    } catch (err) {
      if (err instanceof StaleStateError) {
        await this.decisions.log(run.id, `round:${round}:stale:${run.stateVersion}`, {
          decisionType: 'stale-verdict',
          level: 'L0',
          confidence: 1,
          conclusion: `dropped: computed on state ${run.stateVersion}, but the run is now at ${err.currentVersion}; the step runs again on fresh state`,
          signals: { judgedVersion: run.stateVersion, currentVersion: err.currentVersion },
        });
      }
      throw err;
    }
  }

  /** The policy's move, written with the round's figures and its decisions in one compare-and-set on the state it was decided on. */
  private async afterRound(run: Run, rec: Round, figures: RoundFigures, findings: Finding[]): Promise<void> {
    const { move, log, written } = await this.decision.decide(run, rec, figures, findings);
    await this.hold.reached('round.judged', run.id);
    const counts = await this.ledger.counts(run.id);
    const now = new Date().toISOString();
    const judgedVersion = run.stateVersion;
    const updated = await this.store.mutate(run.id, (r) => {
      if (r.stateVersion !== judgedVersion) throw new StaleStateError(r.stateVersion);
      const x = r.rounds.find((y) => y.n === rec.n);
      if (!x || x.status === 'completed') return undefined;
      Object.assign(x, { status: 'completed', novelty: figures.novelty, coverage: figures.coverage, endedAt: now });
      r.evidence = figures.evidence;
      r.counters = { ...r.counters, ...counts };
      applyMove(r, move, this.pending.taskEstimate(r), now);
      return r;
    }, log);
    if (updated.stateVersion !== judgedVersion) written();
    await this.hold.reached('round.decided', run.id);
    await this.reannounce(updated, rec);
    await this.pending.dispatch(updated);
  }

  /** A completed round's events, from the record: keyed, so a step re-run after a crash writes only what is missing. */
  private async reannounce(run: Run, rec: Round): Promise<void> {
    const { newFindings, newSources, novelty, coverage } = run.rounds.find((r) => r.n === rec.n) ?? rec;
    await this.events.append(run.id, `round.completed:${rec.n}`, 'round.completed', { round: rec.n, newFindings, newSources, novelty, coverage });
    await this.pending.announce(run);
  }
}
