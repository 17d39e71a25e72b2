import { Inject, Injectable } from '@nestjs/common';
import { clipText } from '@orrery/protocol';
import { EngineFactory } from '@orrery/engines';
import { type ModelJudge } from '@orrery/engine';
import type { Round, Run, TokenUsage } from '@orrery/protocol';
import { remaining } from '../budget';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import type { RoundFigures } from '../coverage/round-figures';
import { DecisionLogService } from '../events/decision-log.service';
import type { PreparedEvent } from '../events/run-events.service';
import { decideWithLevels, idleRoundsFromRounds, judgeBudgetMs, type JudgeInput, type L2Judge, type LeveledDecision, type ModelVerdict, type RoundForecast } from '@orrery/decisions';

/**
 * A decision, how long the levels took (ms), the tokens the judge model spent on it (none when the rules decided
 * alone), and its levels' decision-log entries, for the caller to write with the move they lead to.
 */
export type JudgedDecision = LeveledDecision & { ms: number; usage?: TokenUsage; log: PreparedEvent[] };

/** The judge after every round: L0 rules first, the judge model only where they are unsure, a person last. */
@Injectable()
export class RoundJudgeService {
  constructor(
    private readonly engines: EngineFactory,
    private readonly decisions: DecisionLogService,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  input(run: Run, rec: Round, figures: RoundFigures, newFacets: number, now: number, forecast?: RoundForecast): JudgeInput {
    const left = remaining(run.budgetLedger, now);
    const rounds = run.rounds.map((r) => (r.n === rec.n ? { ...rec, status: 'completed' as const } : r));
    return {
      goal: run.topic,
      round: rec.n,
      lastActions: { tasksDispatched: rec.taskIds.length, tasksFailed: rec.failed, newSources: rec.newSources, newFindings: rec.newFindings, newFacets },
      state: {
        subtopics: (run.plan?.subtopics ?? []).map((s) => ({ id: s.id, title: s.title, evidenceCount: figures.evidence[s.id] ?? 0 })),
        coverage: figures.coverage,
        novelty: figures.novelty,
        budgetLeft: { tokens: left.tokens, tasks: left.tasks, rounds: left.rounds, wallSeconds: left.wallSeconds },
        idleRounds: idleRoundsFromRounds(rounds),
      },
      history: run.signalHistory,
      stateVersion: run.stateVersion,
      targetCoverage: this.config.TARGET_COVERAGE,
      ...(forecast ? { forecast } : {}),
    };
  }

  /** `judgeEnabled`: the run's JUDGE setting and the deployment's switch, read just before this decision. */
  async decide(run: Run, input: JudgeInput, judgeEnabled: boolean): Promise<JudgedDecision> {
    const judge = this.engines.coordinator(run.engine).capabilities.judge;
    let usage: TokenUsage | undefined;
    let raw: string | undefined;
    const l2: L2Judge | undefined = judge
      ? async (i, ctx) => {
          const asked = await this.askModel(judge, i, ctx.signal);
          usage = asked.usage;
          raw = asked.raw;
          return asked.verdict;
        }
      : undefined;
    const t0 = performance.now();
    const budget = { timeoutMs: this.config.JUDGE_TIMEOUT_MS, complexTimeoutMs: this.config.JUDGE_COMPLEX_TIMEOUT_MS };
    const decision = { ...(await decideWithLevels(input, { judgeEnabled, ...budget, ...(l2 ? { l2 } : {}) })), ms: performance.now() - t0 };
    const log = decision.trail.map((v, i) =>
      this.decisions.prepare(
        run.id,
        `round:${input.round}:judge:${i}`,
        {
          decisionType: 'judge',
          level: v.level,
          confidence: v.confidence,
          conclusion: clipText(`${v.signal}: ${v.reason}`, 2000),
          signals: {
            ...v.signals,
            signal: v.signal,
            route: decision.route,
            flags: decision.flags,
            input: inputSummary(input),
            // What the model answered, word for word, and how long it took (the L2 entry only).
            ...(v.level === 'L2' && decision.l2Ms !== undefined
              ? { latencyMs: Math.round(decision.l2Ms), budgetMs: judgeBudgetMs(decision.trail[0]!, budget), ...(raw !== undefined ? { modelReply: clipText(raw, 1000) } : {}) }
              : {}),
          },
        },
        v.stateVersion,
      ),
    );
    // Every answer the model gave was paid for, whether or not it was acted on (unsure, or a stale state).
    return usage ? { ...decision, usage, log } : { ...decision, log };
  }

  private async askModel(engine: ModelJudge, input: JudgeInput, signal: AbortSignal): Promise<{ verdict: ModelVerdict; usage?: TokenUsage; raw?: string }> {
    const h = input.history;
    const v = await engine.judgeVerdict({
      goal: input.goal,
      round: input.round,
      lastActions: [`${input.lastActions.tasksDispatched} search tasks, ${input.lastActions.tasksFailed ?? 0} failed`],
      yield: { newFindings: input.lastActions.newFindings, newSources: input.lastActions.newSources, novelty: input.state.novelty, coverage: input.state.coverage },
      stateSummary: input.state.subtopics.map((s) => `${s.title ?? s.id}: ${s.evidenceCount} findings`).join('; ') + `; budget left ${JSON.stringify(input.state.budgetLeft)}`,
      signalHistory: {
        ...(h.lastNonContinue ? { lastNonContinue: { signal: h.lastNonContinue.signal, roundsAgo: input.round - h.lastNonContinue.round } } : {}),
        pivots: h.pivotCount,
      },
      abortSignal: signal,
    });
    const { usage, raw, ...verdict } = v;
    return { verdict, ...(usage ? { usage } : {}), ...(raw !== undefined ? { raw } : {}) };
  }
}

/** What the judge saw, in one line: the decision log's input summary. */
export function inputSummary(input: JudgeInput): string {
  const b = input.state.budgetLeft;
  const y = input.lastActions;
  const pct = (x: number) => Math.round(x * 100);
  return [
    `round ${input.round}`,
    `coverage ${pct(input.state.coverage)}% (target ${pct(input.targetCoverage)}%)`,
    `novelty ${pct(input.state.novelty)}%`,
    `${y.newFindings} new findings, ${y.newSources} new sources from ${y.tasksDispatched} tasks (${y.tasksFailed ?? 0} failed)`,
    `idle rounds ${input.state.idleRounds ?? 0}`,
    `budget left tokens ${pct(b.tokens)}% tasks ${pct(b.tasks)}% rounds ${pct(b.rounds)}% wall ${pct(b.wallSeconds)}%`,
    `pivots ${input.history.pivotCount}${input.history.lastPivotRound !== null ? ` (last after round ${input.history.lastPivotRound})` : ''}`,
  ].join('; ');
}
