import { Inject, Injectable } from '@nestjs/common';
import { EngineFactory, type EngineDecision, type TaskEstimate } from '@orrery/engines';
import type { Finding, ReviewSummaryRecord, Round, Run, SignalHistoryRecord, Subtopic, TokenUsage } from '@orrery/protocol';
import { chargeTokens, shouldWrapUp } from '../../budget';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../../config/coordinator-config';
import type { RoundFigures } from '../../coverage/round-figures';
import { effortFor } from '../../effort';
import { DecisionLogService } from '../../events/decision-log.service';
import { RunEventsService } from '../../events/run-events.service';
import { signalHistory } from '../../judge/signal-history';
import { type JudgedDecision, RoundJudgeService } from '../../judge/round-judge.service';
import { LedgerStore } from '../../ledger/ledger.store';
import { MetricsService } from '../../metrics/metrics.service';
import { buildRoundTasks, buildSynthesisTask } from '../../planning/task-builder';
import { TaskDispatcher } from '../../queues/task-dispatcher';
import { openRound } from '../round-record';
import { RunStore } from '../run-store';
import { RunTransitions } from '../run-transitions';
import { addUsage } from '../usage';
import { FinalizeStep } from './finalize.step';

export class StaleStateError extends Error {
  constructor(readonly currentVersion: number) {
    super(`run state moved on to version ${currentVersion}`);
  }
}

type Move = (
  | { kind: 'round'; subtopicIds: string[]; newSubtopics: Subtopic[]; history: SignalHistoryRecord }
  | { kind: 'review'; review: ReviewSummaryRecord; history: SignalHistoryRecord }
  | { kind: 'synthesize'; history?: SignalHistoryRecord }
) & { usage?: TokenUsage; judgeUsage?: TokenUsage };

const r2 = (x: number) => Math.round(x * 100) / 100;

/** What happens after a round, and on a person's decision: the next round, the report, or a pause for review. */
@Injectable()
export class RoundAdvance {
  constructor(
    private readonly store: RunStore,
    private readonly engines: EngineFactory,
    private readonly judge: RoundJudgeService,
    private readonly ledger: LedgerStore,
    private readonly decisions: DecisionLogService,
    private readonly events: RunEventsService,
    private readonly dispatcher: TaskDispatcher,
    private readonly transitions: RunTransitions,
    private readonly finalize: FinalizeStep,
    private readonly metrics: MetricsService,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  /** What the hub reserves per task: the engine's port says what its tasks take. */
  taskEstimate(run: Run): TaskEstimate {
    return this.engines.coordinator(run.engine).taskEstimate;
  }

  limits() {
    return { findingsPerTask: this.config.FINDINGS_PER_TASK, maxCitations: this.config.MAX_CITATIONS, maxToolCallsPerTask: this.engines.config.TASK_MAX_TOOL_CALLS };
  }

  async afterRound(run: Run, rec: Round, figures: RoundFigures, findings: Finding[]): Promise<void> {
    const move = await this.decideMove(run, rec, figures, findings);
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
      if (move.history) r.signalHistory = move.history;
      this.apply(r, move, now);
      return r;
    });
    await this.events.append(run.id, `round.completed:${rec.n}`, 'round.completed', {
      round: rec.n,
      newFindings: rec.newFindings,
      newSources: rec.newSources,
      novelty: figures.novelty,
      coverage: figures.coverage,
    });
    await this.announce(updated);
    await this.dispatchPending(updated);
  }

  /** A completed round's events, from the record: keyed, so a step re-run after a crash writes only what is missing. */
  async reannounce(run: Run, round: number): Promise<void> {
    const rec = run.rounds.find((r) => r.n === round);
    if (!rec || rec.status !== 'completed') return;
    const { newFindings, newSources, novelty, coverage } = rec;
    await this.events.append(run.id, `round.completed:${rec.n}`, 'round.completed', { round: rec.n, newFindings, newSources, novelty, coverage });
    await this.announce(run);
  }

  /** A person answered a run in needs_review. */
  async resume(run: Run, round: number, action: 'continue' | 'stop'): Promise<void> {
    if (run.status !== 'needs_review') return this.dispatchPending(run);
    let move: Move = { kind: 'synthesize' };
    if (action === 'continue') {
      const findings = await this.ledger.findings(run.id);
      move = await this.refineMove(run, round, findings, run.signalHistory, 'continue', run.evidence);
    }
    const now = new Date().toISOString();
    const updated = await this.store.mutate(run.id, (r) => {
      if (r.status !== 'needs_review') return undefined;
      r.status = 'researching';
      delete r.review;
      delete r.reviewAnswer;
      this.apply(r, move, now);
      return r;
    });
    await this.announce(updated);
    await this.dispatchPending(updated);
  }

  private apply(r: Run, move: Move, now: string): void {
    const charge = (key: string, usage: TokenUsage | undefined): void => {
      if (!usage) return;
      const charged = chargeTokens(r.budgetLedger, key, usage);
      if (charged.applied) {
        r.budgetLedger = charged.state;
        r.usage = addUsage(r.usage, usage);
      }
    };
    charge(`judge-${r.rounds.length}`, move.judgeUsage);
    charge(`refine-${r.rounds.length}`, move.usage);
    if (r.status !== 'researching') return;
    if (move.kind === 'round') {
      if (!openRound(r, r.rounds.length + 1, move.subtopicIds, move.newSubtopics, this.taskEstimate(r), now)) this.apply(r, { kind: 'synthesize' }, now);
    } else if (move.kind === 'review') {
      r.status = 'needs_review';
      r.review = move.review;
    } else {
      r.status = 'synthesizing';
      // The writer is a task too (a straightforward answer needs none).
      if (r.plan?.classification !== 'straightforward') r.counters.tasksDispatched += 1;
    }
  }

  private async announce(run: Run): Promise<void> {
    if (run.status === 'synthesizing' || run.status === 'needs_review' || run.status === 'researching') {
      await this.events.append(run.id, `status:${run.status}:${run.rounds.length}`, 'run.status', { status: run.status });
    }
    if (run.status === 'needs_review') this.metrics.escalation('L3');
  }

  private async decideMove(run: Run, rec: Round, figures: RoundFigures, findings: Finding[]): Promise<Move> {
    const plan = run.plan!;
    const base = { round: rec.n, novelty: r2(figures.novelty), coverage: r2(figures.coverage), thin: figures.thinSubtopicIds.length };
    const log = (d: EngineDecision) => this.decisions.log(run.id, `round:${rec.n}:${d.decisionType}`, d, run.stateVersion);
    if (run.cancelRequested) return { kind: 'synthesize' };
    if (plan.classification === 'straightforward') {
      await log({ decisionType: 'effort', level: 'L0', confidence: 0.9, conclusion: 'straightforward question: answer directly from the one search', signals: base });
      return { kind: 'synthesize' };
    }
    if (rec.n >= run.budget.maxRounds) {
      await log({ decisionType: 'round-cap', level: 'L0', confidence: 1, conclusion: `synthesize: round ${rec.n} of ${run.budget.maxRounds}`, signals: base });
      return { kind: 'synthesize' };
    }
    const newFacets = plan.subtopics.filter((s) => (run.evidence[s.id] ?? 0) === 0 && (figures.evidence[s.id] ?? 0) > 0).length;
    const nowMs = Date.now();
    const decision = await this.judge.decide(run, this.judge.input(run, rec, figures, newFacets, nowMs));
    const move = await this.judgedMove(run, rec, figures, findings, decision, base, log, nowMs);
    // The judge model's tokens are the run's too: charged with the move, once, under a key of their own.
    return decision.usage ? { ...move, judgeUsage: decision.usage } : move;
  }

  private async judgedMove(
    run: Run,
    rec: Round,
    figures: RoundFigures,
    findings: Finding[],
    decision: JudgedDecision,
    base: Record<string, number>,
    log: (d: EngineDecision) => Promise<unknown>,
    nowMs: number,
  ): Promise<Move> {
    const verdict = decision.verdict;
    this.metrics.judgeVerdict(verdict.signal, verdict.level);
    const history = signalHistory(run.signalHistory, verdict, rec.n);
    if (decision.outcome === 'needs_review' && decision.review) {
      await log({ decisionType: 'escalation', level: 'L3', confidence: verdict.confidence, conclusion: `needs review: ${decision.review.question}`.slice(0, 2000), signals: { ...base, cause: decision.review.cause } });
      return { kind: 'review', review: decision.review, history };
    }
    if (verdict.signal === 'stop') return { kind: 'synthesize', history };
    if (shouldWrapUp(run.budgetLedger, nowMs)) {
      await log({ decisionType: 'budget', level: 'L0', confidence: 1, conclusion: 'wrap-up: under 15% of the budget left; synthesize what is there and list the gaps', signals: base });
      return { kind: 'synthesize', history };
    }
    if (rec.n > 1 && figures.novelty < this.config.NOVELTY_STOP) {
      await log({ decisionType: 'novelty-stop', level: 'L0', confidence: 0.9, conclusion: `synthesize: the round added too little new evidence (${base.novelty} < ${this.config.NOVELTY_STOP})`, signals: base });
      return { kind: 'synthesize', history };
    }
    return this.refineMove(run, rec.n, findings, history, verdict.signal, figures.evidence);
  }

  /** Asks the engine for the gaps; a pivot looks for new facets only, a continue also re-searches thin ones. */
  private async refineMove(run: Run, round: number, findings: Finding[], history: SignalHistoryRecord, signal: 'continue' | 'pivot', evidence: Record<string, number>): Promise<Move> {
    const plan = run.plan!;
    const log = (d: EngineDecision) => this.decisions.log(run.id, `round:${round}:${d.decisionType}`, d, run.stateVersion);
    const effort = effortFor(plan.classification);
    const parallel = Math.min(effort.maxSubagentsPerRound, this.config.MAX_SUBTOPICS);
    const tasksLeft = run.budget.maxTasks - run.counters.tasksDispatched;
    const refinement = await this.engines.coordinator(run.engine).refine({
      runId: run.id,
      topic: run.topic,
      ...(run.corpus ? { corpus: run.corpus } : {}),
      plan,
      round,
      findings,
      evidence,
      maxNewTasks: Math.max(0, Math.min(this.config.MAX_NEW_TASKS_PER_ROUND, tasksLeft, parallel)),
    });
    for (const d of refinement.decisions) await log(d);
    const known = new Set(plan.subtopics.map((s) => s.id));
    const newSubtopics = refinement.newSubtopics.filter((s) => !known.has(s.id));
    const thin = signal === 'pivot' ? [] : refinement.thinSubtopicIds.filter((id) => known.has(id));
    const subtopicIds = [...thin, ...newSubtopics.map((s) => s.id)].slice(0, Math.max(0, Math.min(tasksLeft, parallel)));
    const signals = { round, newSubtopics: newSubtopics.length, thin: thin.length, signal };
    if (!subtopicIds.length) {
      await log({ decisionType: 'coverage-stop', level: 'L0', confidence: 0.85, conclusion: 'synthesize: no gaps left worth another round', signals });
      return { kind: 'synthesize', history, usage: refinement.usage };
    }
    await log({ decisionType: signal, level: 'L0', confidence: 0.8, conclusion: `round ${round + 1}: ${subtopicIds.length} gap-targeted tasks`, signals });
    return { kind: 'round', subtopicIds, newSubtopics: newSubtopics.filter((s) => subtopicIds.includes(s.id)), history, usage: refinement.usage };
  }

  /** Dispatches whatever the record says comes next; with deterministic job ids a repeat is a no-op. */
  async dispatchPending(run: Run): Promise<void> {
    if (run.status === 'synthesizing' && run.plan) {
      const findings = await this.ledger.findings(run.id);
      if (run.plan.classification === 'straightforward') {
        await this.finalize.completeDirect(run, findings);
        return;
      }
      const sources = await this.ledger.sources(run.id, [...new Set(findings.map((f) => f.sourceId))]);
      await this.dispatcher.dispatchSynthesis(run.id, buildSynthesisTask(run, run.rounds.length, run.plan, findings, sources, this.limits()));
      return;
    }
    const last = run.rounds[run.rounds.length - 1];
    if (run.status !== 'researching' || !last || last.status !== 'dispatched') return;
    const tasks = buildRoundTasks(run, last.n, await this.ledger.sourceIds(run.id), this.limits());
    // The bookkeeping and `round.started` come before the dispatch: they do not compete with the tasks'
    // results, and a coordinator killed right after the dispatch cannot lose the announcement (the round's
    // tasks may finish and its step run on another coordinator before this step is retried, and the retry
    // would then find the run past this round). A step killed before the dispatch is retried and dispatches.
    await this.transitions.recordTasks(run, last.n, tasks);
    await this.transitions.announceRound(run, last.n, tasks);
    await this.dispatcher.dispatchRound(run.id, last.n, tasks);
  }
}
