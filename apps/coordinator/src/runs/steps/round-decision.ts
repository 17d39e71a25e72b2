import { Inject, Injectable } from '@nestjs/common';
import { EngineFactory } from '@orrery/engines';
import { type EngineDecision } from '@orrery/engine';
import type { Finding, Round, Run, TokenUsage } from '@orrery/protocol';
import { type BudgetFractions, remaining, tightestOf } from '../../budget';
import { spendingPhase } from '../../budget/spending-phase';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../../config/coordinator-config';
import type { RoundFigures } from '../../coverage/round-figures';
import { effortFor } from '../../effort';
import { DecisionLogService } from '../../events/decision-log.service';
import { type PreparedEvent, RunEventsService } from '../../events/run-events.service';
import { DeploymentJudgeSwitch } from '../../judge/deployment-judge-switch';
import { buildReviewSummary, projectSpend, type RoundForecast, WRAP_UP_FRACTION } from '@orrery/decisions';
import { type JudgedDecision, RoundJudgeService } from '../../judge/round-judge.service';
import { MetricsService } from '../../metrics/metrics.service';
import { nextMove, type PolicyGaps, type PolicyInput, type PolicyVerdict } from '../../policy/next-move';
import type { DecidedMove } from '../apply-move';

/**
 * A move and the decision-log entries that led to it (the judge's levels, the engine's gaps, the move itself, a
 * spend warning), for the caller to write in the same compare-and-set as the move: an execution whose move is
 * not applied (superseded, or killed before it wrote) leaves nothing in the log. `written` counts what the
 * move's write made true, once it has landed.
 */
export interface DecidedWithLog {
  move: DecidedMove;
  log: PreparedEvent[];
  written: () => void;
}

/**
 * Carries out the round policy's questions: it calls `nextMove`, answers `ask-judge` with the judge and
 * `find-gaps` with the engine, and calls again until the policy names a move. It decides nothing itself.
 */
@Injectable()
export class RoundDecision {
  constructor(
    private readonly engines: EngineFactory,
    private readonly judge: RoundJudgeService,
    private readonly decisions: DecisionLogService,
    private readonly events: RunEventsService,
    private readonly metrics: MetricsService,
    private readonly judgeSwitch: DeploymentJudgeSwitch,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  /** After round `rec`; with `person`, a person's answer to a review stands in for the judge. */
  async decide(run: Run, rec: Round, figures: RoundFigures, findings: Finding[], person?: PolicyVerdict & { by: 'person' }): Promise<DecidedWithLog> {
    const plan = run.plan!;
    // The clock of the state decided on (its last write), not of this execution: every execution on one state
    // version sees the same wall budget, so a step run again after a crash decides what the first one did.
    const nowMs = Date.parse(run.updatedAt);
    const effort = effortFor(plan.classification);
    const left = remaining(run.budgetLedger, nowMs);
    const input: PolicyInput = {
      state: {
        cancelRequested: run.cancelRequested,
        classification: plan.classification,
        round: rec.n,
        maxRounds: run.budget.maxRounds,
        maxTasks: run.budget.maxTasks,
        tasksDispatched: run.counters.tasksDispatched,
        parallel: Math.min(effort.maxSubagentsPerRound, this.config.MAX_SUBTOPICS),
        maxNewTasksPerRound: this.config.MAX_NEW_TASKS_PER_ROUND,
        history: run.signalHistory,
        knownSubtopicIds: plan.subtopics.map((s) => s.id),
        followUp: run.parentId !== undefined,
      },
      figures: { coverage: figures.coverage, targetCoverage: this.config.TARGET_COVERAGE, novelty: figures.novelty, budgetLeft: tightestOf(left), extendableLeft: Math.min(left.tokens, left.tasks, left.rounds, left.wallSeconds) },
      ...(person ? { verdict: person } : {}),
    };
    const log: PreparedEvent[] = [];
    const newFacets = plan.subtopics.filter((s) => (run.evidence[s.id] ?? 0) === 0 && (figures.evidence[s.id] ?? 0) > 0).length;
    let judgeInput = this.judge.input(run, rec, figures, newFacets, nowMs);
    let judged: JudgedDecision | undefined;
    let usage: TokenUsage | undefined;
    const spent = () => ({ ...(judged?.usage ? { judgeUsage: judged.usage } : {}), ...(usage ? { usage } : {}) });
    for (;;) {
      const move = nextMove(input);
      if (move.kind === 'ask-judge') {
        // What the next round can find, where the engine can tell cheaply: the judge's forecast.
        const forecast = await this.forecast(run, rec.n, findings, figures);
        if (forecast) judgeInput = this.judge.input(run, rec, figures, newFacets, nowMs, forecast);
        // Read at every decision: an admin's flip reaches running runs on their next round.
        judged = await this.judge.decide(run, judgeInput, await this.judgeSwitch.modelJudging(run.judgeEnabled));
        log.push(...judged.log);
        this.metrics.judged('round', { signal: judged.verdict.signal, level: judged.verdict.level, seconds: judged.ms / 1000, timedOut: judged.flags.includes('l2-timeout') });
        input.verdict = { by: 'judge', outcome: judged.outcome, verdict: judged.verdict, input: judgeInput };
        continue;
      }
      if (move.kind === 'find-gaps') {
        const gaps = await this.findGaps(run, rec.n, findings, figures, move.maxNewTasks, move.signal);
        log.push(...gaps.log);
        usage = gaps.usage;
        input.gaps = gaps;
        continue;
      }
      log.push(this.decisions.prepare(run.id, `round:${rec.n}:${move.decision.decisionType}`, move.decision, run.stateVersion));
      const history = move.history ? { history: move.history } : {};
      const decided = (m: DecidedMove, written = (): void => undefined): DecidedWithLog => ({ move: m, log, written });
      if (move.kind === 'round') {
        const warning = this.spendWarning(run, rec.n, left);
        if (warning) log.push(...warning.log);
        return decided({ kind: 'round', subtopicIds: move.subtopicIds, newSubtopics: move.newSubtopics, ...history, ...spent() }, warning?.written);
      }
      if (move.kind === 'review') {
        const review = judged?.review ?? buildReviewSummary(judgeInput, move.cause, judged?.trail ?? []);
        return decided({ kind: 'review', review, ...history, ...spent() });
      }
      return decided({ kind: 'synthesize', ...history, ...spent() });
    }
  }

  private async forecast(run: Run, round: number, findings: Finding[], figures: RoundFigures): Promise<RoundForecast | undefined> {
    const engine = this.engines.coordinator(run.engine);
    if (!engine.forecast) return undefined;
    const input = { runId: run.id, topic: run.topic, ...(run.corpus ? { corpus: run.corpus } : {}), plan: run.plan!, round, findings, evidence: figures.evidence, maxNewTasks: this.config.MAX_NEW_TASKS_PER_ROUND };
    return engine.forecast(input);
  }

  /** Another round is coming: when the spend rate so far projects past the budget in it, say so before it does. */
  private spendWarning(run: Run, round: number, left: BudgetFractions): { log: PreparedEvent[]; written: () => void } | undefined {
    const over = projectSpend({ ...left }, run.budgetLedger.roundsStarted);
    if (!over) return undefined;
    const pct = (x: number) => `${Math.round(x * 100)}%`;
    const phase = spendingPhase(over.dimension, run.usage);
    const spending = phase ? ` (most of it spent in ${phase})` : '';
    const decision: EngineDecision = {
      decisionType: 'budget-warning',
      level: 'L0',
      confidence: 0.8,
      conclusion: `warning: the ${over.dimension} budget has ${pct(over.left)} left and each round so far spent ${pct(over.perRound)}${spending}: round ${round + 1} may overrun it before the wrap-up at ${pct(WRAP_UP_FRACTION)}`,
      signals: { round, dimension: over.dimension, left: Math.round(over.left * 1000) / 1000, perRound: Math.round(over.perRound * 1000) / 1000, ...(phase ? { phase } : {}) },
    };
    return {
      log: [
        this.decisions.prepare(run.id, `round:${round}:budget-warning`, decision, run.stateVersion),
        this.events.prepare(run.id, `budget.warning:${round}`, 'budget.warning', { round, dimension: over.dimension, left: over.left, perRound: over.perRound, ...(phase ? { phase } : {}) }),
      ],
      written: () => this.metrics.spendWarning(over.dimension, phase ?? 'none'),
    };
  }

  /** The engine's gaps: thin subtopics to search again and new ones to add; on a pivot, a new decomposition. */
  private async findGaps(run: Run, round: number, findings: Finding[], figures: RoundFigures, maxNewTasks: number, signal: 'continue' | 'pivot'): Promise<PolicyGaps & { usage: TokenUsage; log: PreparedEvent[] }> {
    const engine = this.engines.coordinator(run.engine);
    const ask = signal === 'pivot' ? engine.replan.bind(engine) : engine.refine.bind(engine);
    const refinement = await ask({
      runId: run.id,
      topic: run.topic,
      ...(run.corpus ? { corpus: run.corpus } : {}),
      plan: run.plan!,
      round,
      findings,
      evidence: figures.evidence,
      maxNewTasks,
    });
    return { ...refinement, log: refinement.decisions.map((d) => this.decisions.prepare(run.id, `round:${round}:${d.decisionType}`, d, run.stateVersion)) };
  }
}
