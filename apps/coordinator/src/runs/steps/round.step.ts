import { Inject, Injectable } from '@nestjs/common';
import { type Finding, type Run, type SearchResult, SearchResultSchema, type SearchTask, SearchTaskSchema, type TokenUsage } from '@orrery/protocol';
import type { Job } from 'bullmq';
import { reserve, settle } from '../../budget';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../../config/coordinator-config';
import { roundFigures } from '../../coverage/round-figures';
import { DecisionLogService } from '../../events/decision-log.service';
import { RunEventsService } from '../../events/run-events.service';
import { LedgerStore } from '../../ledger/ledger.store';
import { ResultIntakeService } from '../../ledger/result-intake.service';
import { MetricsService } from '../../metrics/metrics.service';
import { attemptOfTask, jobIds } from '../../queues/job-ids';
import { TaskDispatcher } from '../../queues/task-dispatcher';
import { filterResult, verdictOnResult } from '../../verdicts';
import { RunStore } from '../run-store';
import { addUsage } from '../usage';
import { RoundAdvance, StaleStateError } from './round-advance.service';

interface TaskOutcome {
  taskId: string;
  ok: boolean;
  returned: number;
  newFindings: number;
  newSources: number;
  usage: TokenUsage;
  error?: string;
  retry?: SearchTask;
}

const ZERO: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
function rejectedSourceIds(raw: unknown, kept: SearchResult | null): string[] {
  const parsed = SearchResultSchema.safeParse(raw);
  if (!parsed.success) return [];
  const keep = new Set(kept?.sources.map((x) => x.id));
  return parsed.data.sources.map((x) => x.id).filter((id) => !keep.has(id));
}

const taskIdOfKey = (key: string) => key.slice(key.lastIndexOf(':') + 1);
const reservationOf = (round: number, taskId: string) => {
  const attempt = attemptOfTask(taskId);
  return attempt ? `round-${round}-retry-${attempt}` : `round-${round}`;
};

/**
 * Runs when a round's tasks are all done (or failed after their retries): give each result a verdict,
 * merge what passes into the ledger, re-dispatch what deserves a retry, then measure and decide.
 */
@Injectable()
export class RoundStep {
  constructor(
    private readonly store: RunStore,
    private readonly intake: ResultIntakeService,
    private readonly ledger: LedgerStore,
    private readonly decisions: DecisionLogService,
    private readonly events: RunEventsService,
    private readonly dispatcher: TaskDispatcher,
    private readonly advance: RoundAdvance,
    private readonly metrics: MetricsService,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  async run(runId: string, round: number, job: Job, retry = 0): Promise<void> {
    let run = await this.store.require(runId);
    const rec = run.rounds.find((r) => r.n === round);
    // Re-delivered after a crash between the round's write and its events: write what is missing (keyed, so once).
    if (rec?.status === 'completed') await this.advance.reannounce(run, round);
    if (run.status !== 'researching' || !run.plan || !rec || rec.status === 'completed') return this.advance.dispatchPending(run);

    const outcomes = await this.collect(run, round, job);
    const retries = outcomes.flatMap((o) => (o.retry ? [o.retry] : []));
    const estimate = this.advance.tokensPerTask(run);
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
        r.usage = addUsage(r.usage, o.usage);
        r.counters.tasksCompleted += o.ok ? 1 : 0;
        r.counters.tasksFailed += o.ok ? 0 : 1;
        if (o.error) r.errors.push({ ts: now, step: `round ${round}`, message: `${o.taskId}: ${o.error}`.slice(0, 2000) });
      }
      const fresh = retries.filter((t) => !x.taskIds.includes(t.taskId));
      if (fresh.length) {
        const res = reserve(r.budgetLedger, { id: `round-${round}-retry-${retry + 1}`, tasks: fresh.length, tokens: estimate * fresh.length }, { mode: 'trim', nowMs: Date.now() });
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

    const current = run.rounds.find((r) => r.n === round)!;
    const pending = retries.filter((t) => current.taskIds.includes(t.taskId));
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

  /** Verdicts and merges for every child of this round step; both are idempotent per task id. */
  private async collect(run: Run, round: number, job: Job): Promise<TaskOutcome[]> {
    const outcomes: TaskOutcome[] = [];
    const values = await job.getChildrenValues();
    for (const [key, value] of Object.entries(values)) {
      const taskId = taskIdOfKey(key);
      const taskJob = await this.dispatcher.taskJob(taskId);
      if (taskJob?.processedOn && taskJob.finishedOn) this.metrics.taskDuration('search', (taskJob.finishedOn - taskJob.processedOn) / 1000);
      const task = SearchTaskSchema.safeParse(taskJob?.data);
      if (!task.success) {
        outcomes.push({ taskId, ok: false, returned: 0, newFindings: 0, newSources: 0, usage: ZERO, error: 'the task payload is gone; result not checked' });
        continue;
      }
      outcomes.push(await this.judgeResult(run, round, task.data, value));
    }
    for (const [key, reason] of Object.entries(await job.getIgnoredChildrenFailures())) {
      const taskId = taskIdOfKey(key);
      const error = String(reason).slice(0, 2000);
      await this.events.append(run.id, `task.failed:${taskId}`, 'task.failed', { round, taskId, error });
      this.metrics.taskOutcome('search', 'failed');
      outcomes.push({ taskId, ok: false, returned: 0, newFindings: 0, newSources: 0, usage: ZERO, error });
    }
    return outcomes;
  }

  private async judgeResult(run: Run, round: number, task: SearchTask, value: unknown): Promise<TaskOutcome> {
    const attempt = attemptOfTask(task.taskId);
    const verdict = verdictOnResult({ task, result: value, topic: run.topic, attempt });
    const filtered = filterResult({ task, result: value, topic: run.topic });
    this.metrics.resultVerdict(verdict.verdict);
    await this.decisions.log(
      run.id,
      `verdict:${task.taskId}`,
      {
        decisionType: 'result-verdict',
        level: 'L0',
        confidence: verdict.verdict === 'pass' ? 0.95 : 0.85,
        conclusion: `${verdict.verdict}: ${verdict.detail}`.slice(0, 2000),
        signals: {
          taskId: task.taskId,
          attempt,
          format: verdict.checks.format.status,
          meaning: verdict.checks.meaning.status,
          scope: verdict.checks.scope.status,
          kept: filtered.kept,
          dropped: filtered.dropped,
        },
      },
      run.stateVersion,
    );
    // Good findings are kept whatever the verdict; a retry may add what the first attempt got wrong.
    const merge = filtered.result ? await this.intake.accept(run.id, round, task.taskId, filtered.result) : { newFindings: 0, newSources: 0 };
    const usage = filtered.result?.usage ?? ZERO;
    const stats = filtered.result?.stats ?? {};
    this.metrics.structuredOutputFailures(stats.structuredRetries ?? 0);
    for (let i = 0; i < (stats.fallbacks ?? 0); i++) this.metrics.fallback('subagent-engine');
    this.metrics.taskOutcome('search', verdict.verdict);
    // A retry is worth a task only when nothing usable came back; it is told what was wrong, and the
    // sources it got wrong count as known, so even a deterministic engine looks elsewhere.
    const rejected = rejectedSourceIds(value, filtered.result);
    const retry: SearchTask | undefined =
      verdict.verdict === 'retry' && filtered.kept === 0
        ? {
            ...task,
            taskId: jobIds.retryTask(task.taskId, attempt + 1),
            knownSourceIds: [...new Set([...task.knownSourceIds, ...rejected])].slice(0, 5000),
            context: { ...task.context, correction: (verdict.correction ?? verdict.detail).slice(0, 2000) },
          }
        : undefined;
    return {
      taskId: task.taskId,
      ok: filtered.result !== null,
      returned: filtered.result?.findings.length ?? 0,
      newFindings: merge.newFindings,
      newSources: merge.newSources,
      usage,
      ...(filtered.result ? {} : { error: `result rejected: ${verdict.detail}` }),
      ...(retry ? { retry } : {}),
    };
  }

  /** All tasks of the round are settled: measure coverage and novelty, judge, and move on. */
  private async complete(run: Run, round: number): Promise<void> {
    const rec = run.rounds.find((r) => r.n === round)!;
    const findings: Finding[] = await this.ledger.findings(run.id);
    const figures = roundFigures(run.plan!, findings, rec.returned, rec.newFindings);
    try {
      await this.advance.afterRound(run, rec, figures, findings);
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
}
