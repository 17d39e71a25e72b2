import { Injectable } from '@nestjs/common';
import { type SearchResult, SearchResultSchema, type SearchTask, type TokenUsage, clipText } from '@orrery/protocol';
import { EngineFactory } from '@orrery/engines';
import { ZERO_USAGE } from '@orrery/engine';
import { BoundedMap } from '@orrery/runtime';
import { DecisionLogService } from '../events/decision-log.service';
import { logReportedDecisions } from '../events/task-decisions';
import { MetricsService } from '../metrics/metrics.service';
import { attemptOfTask, jobIds } from '../queues/job-ids';
import { type CheckedResult, checkResult, filterResult, offTopicSourceIds, verdictOnResult, withVouchedSources } from '../verdicts';
import { ResultIntakeService } from './result-intake.service';

export interface TaskOutcome {
  taskId: string;
  ok: boolean;
  returned: number;
  newFindings: number;
  newSources: number;
  usage: TokenUsage;
  error?: string;
  retry?: SearchTask;
}

const CHECKED_LIMIT = 2000;

export { ZERO_USAGE };

function rejectedSourceIds(raw: unknown, kept: SearchResult | null): string[] {
  const parsed = SearchResultSchema.safeParse(raw);
  if (!parsed.success) return [];
  const keep = new Set(kept?.sources.map((x) => x.id));
  return parsed.data.sources.map((x) => x.id).filter((id) => !keep.has(id));
}

/**
 * The verdict on one search result (format, meaning, scope), then the ledger merge of what passes.
 * Deterministic and idempotent per task id: the queue's completion event checks a result as soon as it
 * lands, and its round step checks it again with the same outcome, counted and logged once.
 */
@Injectable()
export class ResultCheckService {
  constructor(
    private readonly intake: ResultIntakeService,
    private readonly decisions: DecisionLogService,
    private readonly metrics: MetricsService,
    private readonly engines: EngineFactory,
  ) {}

  /**
   * Checks in flight or done in this process, by task id: the round step reuses the completion event's
   * check instead of repeating it. Bounded; a check that failed is dropped so that it runs again.
   */
  private readonly checked = new BoundedMap<string, Promise<TaskOutcome>>(CHECKED_LIMIT);

  /** `stateVersion`: the run state the check was made on, recorded with its decision. */
  check(runId: string, round: number, task: SearchTask, value: unknown, stateVersion?: number): Promise<TaskOutcome> {
    const seen = this.checked.get(task.taskId);
    if (seen) return seen;
    const outcome = this.checkOnce(runId, round, task, value, stateVersion);
    this.checked.set(task.taskId, outcome);
    outcome.catch(() => this.checked.delete(task.taskId));
    return outcome;
  }

  /**
   * Findings that share no term with the topic are put to the hub's own precision guard, when its engine has
   * one. A guard that cannot answer (its corpus not registered here) leaves the term test's verdict standing.
   */
  private async heardByGuard(task: SearchTask, checked: CheckedResult, ask: string[]): Promise<CheckedResult> {
    try {
      const engine = this.engines.coordinator(task.engine);
      if (!engine.onTopicSources) return checked;
      const vouched = await engine.onTopicSources({ topic: task.context.topic, ...(task.corpus ? { corpus: task.corpus } : {}), sourceIds: ask });
      return withVouchedSources(checked, vouched);
    } catch {
      return checked;
    }
  }

  private async checkOnce(runId: string, round: number, task: SearchTask, value: unknown, stateVersion?: number): Promise<TaskOutcome> {
    const topic = task.context.topic;
    const attempt = attemptOfTask(task.taskId);
    const termChecked = checkResult(task, value, topic);
    // Only a finding that failed the term test waits on the guard: a clean result stays off this await.
    const ask = offTopicSourceIds(termChecked);
    const checked = ask.length ? await this.heardByGuard(task, termChecked, ask) : termChecked;
    const verdict = verdictOnResult({ task, result: value, topic, attempt, checked });
    const filtered = filterResult({ task, result: value, topic, checked });
    const verdictEvent = this.decisions.prepare(
      runId,
      `verdict:${task.taskId}`,
      {
        decisionType: 'result-verdict',
        level: 'L0',
        confidence: verdict.verdict === 'pass' ? 0.95 : 0.85,
        conclusion: clipText(`${verdict.verdict}: ${verdict.detail}`, 2000),
        signals: {
          taskId: task.taskId,
          verdict: verdict.verdict,
          attempt,
          format: verdict.checks.format.status,
          meaning: verdict.checks.meaning.status,
          scope: verdict.checks.scope.status,
          kept: filtered.kept,
          dropped: filtered.dropped,
          ...(verdict.failures ? { failures: clipText(verdict.failures.map((f) => `${f.findingId}: ${f.issues.join(', ')}`).join('; '), 1000) } : {}),
        },
      },
      stateVersion,
    );
    // Good findings are kept whatever the verdict; a retry may add what the first attempt got wrong.
    const [merge] = await Promise.all([
      this.intake.accept(runId, round, task.taskId, verdictEvent, filtered.result, task.subtopicId),
      logReportedDecisions(this.decisions, runId, task.taskId, round, filtered.result?.decisions, (d) => this.metrics.taskDecisionLogged(d)),
    ]);
    const logged = merge.logged;
    const stats = filtered.result?.stats ?? {};
    if (logged) {
      this.metrics.resultVerdict(verdict.verdict);
      this.metrics.taskOutcome('search', verdict.verdict);
      this.metrics.structuredOutputFailures(stats.structuredRetries ?? 0);
      for (let i = 0; i < (stats.fallbacks ?? 0); i++) this.metrics.fallback('subagent-engine');
    }
    // A retry (nothing usable came back) is told what was wrong, and the sources it got wrong count as
    // known, so even a deterministic engine looks elsewhere.
    const retry: SearchTask | undefined =
      verdict.verdict === 'retry'
        ? {
            ...task,
            taskId: jobIds.retryTask(task.taskId, attempt + 1),
            knownSourceIds: [...new Set([...task.knownSourceIds, ...rejectedSourceIds(value, filtered.result)])].slice(0, 5000),
            context: { ...task.context, correction: clipText(verdict.correction ?? verdict.detail, 2000) },
          }
        : undefined;
    return {
      taskId: task.taskId,
      ok: filtered.result !== null,
      returned: filtered.result?.findings.length ?? 0,
      newFindings: merge.newFindings,
      newSources: merge.newSources,
      usage: filtered.result?.usage ?? ZERO_USAGE,
      ...(filtered.result ? {} : { error: `result rejected: ${verdict.detail}` }),
      ...(retry ? { retry } : {}),
    };
  }
}
