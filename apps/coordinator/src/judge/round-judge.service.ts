import { Inject, Injectable } from '@nestjs/common';
import { EngineFactory, type JudgeInput as ModelJudgeInput } from '@orrery/engines';
import type { Round, Run, TokenUsage } from '@orrery/protocol';
import { remaining } from '../budget';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import type { RoundFigures } from '../coverage/round-figures';
import { DecisionLogService } from '../events/decision-log.service';
import { type L2Judge, type LeveledDecision, decideWithLevels } from './decide-with-levels';
import { idleRoundsFromRounds } from './idle-rounds';
import type { JudgeInput, JudgeVerdict } from './judge-types';

/** What the judge model offers, when the run's engine has one (the Claude engine does). */
interface ModelJudge {
  judgeVerdict(input: ModelJudgeInput): Promise<{ signal: JudgeVerdict['signal']; confidence: number; reason: string; usage?: TokenUsage }>;
}

/** A decision and the tokens the judge model spent on it (none when the rules decided alone). */
export type JudgedDecision = LeveledDecision & { usage?: TokenUsage };

const hasModelJudge = (e: unknown): e is ModelJudge => typeof (e as Partial<ModelJudge>)?.judgeVerdict === 'function';

/** The judge after every round: L0 rules first, the judge model only where they are unsure, a person last. */
@Injectable()
export class RoundJudgeService {
  constructor(
    private readonly engines: EngineFactory,
    private readonly decisions: DecisionLogService,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  input(run: Run, rec: Round, figures: RoundFigures, newFacets: number, now: number): JudgeInput {
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
    };
  }

  /** `judgeEnabled`: the run's JUDGE setting and the deployment's switch, read just before this decision. */
  async decide(run: Run, input: JudgeInput, judgeEnabled: boolean): Promise<JudgedDecision> {
    const engine = this.engines.coordinator(run.engine);
    let usage: TokenUsage | undefined;
    const l2: L2Judge | undefined = hasModelJudge(engine)
      ? async (i, ctx) => {
          const asked = await this.askModel(engine, i, ctx.signal);
          usage = asked.usage;
          return asked.verdict;
        }
      : undefined;
    const decision = await decideWithLevels(input, { judgeEnabled, timeoutMs: this.config.JUDGE_TIMEOUT_MS, ...(l2 ? { l2 } : {}) });
    for (const [i, v] of decision.trail.entries()) {
      await this.decisions.log(
        run.id,
        `round:${input.round}:judge:${i}`,
        {
          decisionType: 'judge',
          level: v.level,
          confidence: v.confidence,
          conclusion: `${v.signal}: ${v.reason}`.slice(0, 2000),
          signals: { ...v.signals, signal: v.signal, route: decision.route, flags: decision.flags },
        },
        v.stateVersion,
      );
    }
    // Every answer the model gave was paid for, whether or not it was acted on (unsure, or a stale state).
    return usage ? { ...decision, usage } : decision;
  }

  private async askModel(engine: ModelJudge, input: JudgeInput, signal: AbortSignal): Promise<{ verdict: JudgeVerdict; usage?: TokenUsage }> {
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
    const { usage, ...verdict } = v;
    return { verdict: { ...verdict, level: 'L2', stateVersion: input.stateVersion, signals: { model: true } }, ...(usage ? { usage } : {}) };
  }
}
