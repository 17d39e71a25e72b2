import { clipText } from '@orrery/protocol';
import { type EngineDecision } from '@orrery/engine';
import type { RequestClass, Subtopic } from '@orrery/protocol';
import { applyPivotGuards, budgetCall, type JudgeInput, type JudgeVerdict, type ReviewCause, type SignalHistory, signalHistory } from '@orrery/decisions';

/** The run as the policy sees it after a round (or on a person's answer): plain data, no clock, no I/O. */
export interface PolicyState {
  cancelRequested: boolean;
  classification: RequestClass;
  /** The round that just completed. */
  round: number;
  maxRounds: number;
  maxTasks: number;
  tasksDispatched: number;
  /** Tasks one round may dispatch (effort and MAX_SUBTOPICS) and new subtopics one refinement may add. */
  parallel: number;
  maxNewTasksPerRound: number;
  history: SignalHistory;
  /** Known subtopic ids of the plan: a refinement's ids are new only when not among them. */
  knownSubtopicIds: readonly string[];
  /** A follow-up: its coverage counts the evidence it inherited, and it researches only what that leaves open. */
  followUp?: boolean;
}

export interface PolicyFigures {
  coverage: number;
  targetCoverage: number;
  novelty: number;
  /** The tightest budget dimension, every dimension (dollars too) counted. */
  budgetLeft: { dimension: string; fraction: number };
  /**
   * The tightest of the dimensions a person may extend at a review (tokens, tasks, rounds, wall time). A spent
   * dollar cap is final: the run reports what it has rather than wait for someone to spend past it.
   */
  extendableLeft: number;
}

/** What the step handler brings back after carrying out an `ask-judge` move, or a person's answer. */
export type PolicyVerdict =
  | { by: 'judge'; outcome: 'act' | 'needs_review'; verdict: JudgeVerdict; input: JudgeInput }
  | { by: 'person'; action: 'continue' | 'stop' };

/** What the engine answered to a `find-gaps` move. */
export interface PolicyGaps {
  thinSubtopicIds: readonly string[];
  newSubtopics: readonly Subtopic[];
}

export interface PolicyInput {
  state: PolicyState;
  figures: PolicyFigures;
  verdict?: PolicyVerdict;
  gaps?: PolicyGaps;
}

/** Every rule that can end research or start a round, named once; logged as `signals.rule`. */
export type PolicyRule =
  | 'cancelled'
  | 'straightforward'
  | 'round-cap'
  | 'inherited-covered'
  | 'budget-exhausted-below-target'
  | 'budget-exhausted'
  | 'budget-wrap-up'
  | 'judge-review'
  | 'judge-stop'
  | 'person-stop'
  | 'no-gaps'
  | 'gaps';

export type NextMove =
  /** End research: write the report from what the ledger holds. */
  | { kind: 'synthesize'; rule: PolicyRule; decision: EngineDecision; history?: SignalHistory }
  /** Pause for a person (L3). */
  | { kind: 'review'; rule: PolicyRule; cause: ReviewCause; decision: EngineDecision; history?: SignalHistory }
  /** Ask the judge (L0 → L2); call again with its verdict. */
  | { kind: 'ask-judge' }
  /** Ask the engine for gaps (`pivot`: a new decomposition away from what is exhausted); call again with them. */
  | { kind: 'find-gaps'; signal: 'continue' | 'pivot'; maxNewTasks: number; history?: SignalHistory }
  /** Open the next round with these subtopics. */
  | { kind: 'round'; rule: PolicyRule; subtopicIds: string[]; newSubtopics: Subtopic[]; decision: EngineDecision; history?: SignalHistory };

const r2 = (x: number) => Math.round(x * 100) / 100;

/**
 * The one round-level policy: given the run, the round's figures and whatever the handler has gathered so
 * far (the judge's verdict, the engine's gaps), the next move. Pure, so the step handlers only carry it out:
 * `ask-judge` and `find-gaps` are questions the handler answers before calling again.
 * Order: cancel, straightforward, round cap, a follow-up at target coverage, budget (every dimension: tokens, tasks, rounds, wall, dollars; exhausted below
 * target → person; exhausted or under WRAP_UP_FRACTION → wrap up), the judge (review, stop, pivot guards: cooldown and cap), gaps.
 */
export function nextMove(input: PolicyInput): NextMove {
  const { state, figures, verdict, gaps } = input;
  const signals = { round: state.round, novelty: r2(figures.novelty), coverage: r2(figures.coverage) };
  const end = (rule: PolicyRule, confidence: number, conclusion: string, history?: SignalHistory, decisionType: string = rule): NextMove => ({
    kind: 'synthesize',
    rule,
    decision: { decisionType, level: 'L0', confidence, conclusion, signals: { ...signals, rule } },
    ...(history ? { history } : {}),
  });

  if (state.cancelRequested) return end('cancelled', 1, 'synthesize: the run was cancelled');
  const person = verdict?.by === 'person' ? verdict : undefined;
  if (person?.action === 'stop') return end('person-stop', 1, 'synthesize: a person chose to stop');
  if (!person) {
    if (state.classification === 'straightforward') return end('straightforward', 0.9, 'straightforward question: answer directly from the one search', undefined, 'effort');
    if (state.round >= state.maxRounds) return end('round-cap', 1, `synthesize: round ${state.round} of ${state.maxRounds}`);
    // Its round searched what the parent left open; with that, the plan is covered: no gap finding past the question.
    if (state.followUp && figures.coverage >= figures.targetCoverage) {
      return end('inherited-covered', 0.85, `synthesize: the inherited evidence and round ${state.round} cover ${Math.round(figures.coverage * 100)}% of the plan`, undefined, 'coverage-stop');
    }
  }
  const tasksLeft = Math.max(0, state.maxTasks - state.tasksDispatched);

  if (!person) {
    const budget = budgetCall(figures.budgetLeft.fraction);
    const budgetSignals = { ...signals, budgetTightest: figures.budgetLeft.dimension, budgetLeft: r2(figures.budgetLeft.fraction) };
    if (budgetCall(figures.extendableLeft) === 'exhausted' && figures.coverage < figures.targetCoverage) {
      const rule = 'budget-exhausted-below-target';
      return { kind: 'review', rule, cause: rule, decision: { decisionType: 'escalation', level: 'L3', confidence: 0.99, conclusion: `needs review: the ${figures.budgetLeft.dimension} budget is spent below target coverage`, signals: { ...budgetSignals, rule } } };
    }
    if (budget !== 'ok') {
      const rule = budget === 'exhausted' ? 'budget-exhausted' : 'budget-wrap-up';
      const conclusion = budget === 'exhausted' ? `synthesize: the ${figures.budgetLeft.dimension} budget is spent` : 'wrap-up: under 15% of the budget left; synthesize what is there and list the gaps';
      return { kind: 'synthesize', rule, decision: { decisionType: 'budget', level: 'L0', confidence: 1, conclusion, signals: { ...budgetSignals, rule } } };
    }
    if (!verdict) return { kind: 'ask-judge' };
  }

  let signal: 'continue' | 'pivot' = 'continue';
  let history = state.history;
  if (verdict?.by === 'judge') {
    // The pivot guards see the judge's input; what they let through is what the history records.
    const guarded = applyPivotGuards(verdict.verdict, verdict.input);
    history = signalHistory(state.history, guarded, state.round);
    if (verdict.outcome === 'needs_review') {
      return { kind: 'review', rule: 'judge-review', cause: 'judge-unsure', history, decision: { decisionType: 'escalation', level: 'L3', confidence: guarded.confidence, conclusion: clipText(`needs review: the judge is unsure (${guarded.reason})`, 2000), signals: { ...signals, rule: 'judge-review' } } };
    }
    if (guarded.signal === 'stop') return end('judge-stop', guarded.confidence, clipText(`synthesize: ${guarded.level} judge says stop (${guarded.reason})`, 2000), history);
    signal = guarded.signal;
  }

  const parallel = Math.max(0, Math.min(state.parallel, tasksLeft));
  if (!gaps) return { kind: 'find-gaps', signal, maxNewTasks: Math.max(0, Math.min(state.maxNewTasksPerRound, parallel)), history };

  const known = new Set(state.knownSubtopicIds);
  const fresh = gaps.newSubtopics.filter((s) => !known.has(s.id));
  // A pivot moves away from the old plan: only the new decomposition's subtopics are searched.
  const thin = signal === 'pivot' ? [] : gaps.thinSubtopicIds.filter((id) => known.has(id));
  const subtopicIds = [...thin, ...fresh.map((s) => s.id)].slice(0, parallel);
  const gapSignals = { ...signals, newSubtopics: fresh.length, thin: thin.length, signal };
  if (!subtopicIds.length) {
    return { kind: 'synthesize', rule: 'no-gaps', history, decision: { decisionType: 'coverage-stop', level: 'L0', confidence: 0.85, conclusion: 'synthesize: no gaps left worth another round', signals: { ...gapSignals, rule: 'no-gaps' } } };
  }
  return {
    kind: 'round',
    rule: 'gaps',
    subtopicIds,
    newSubtopics: fresh.filter((s) => subtopicIds.includes(s.id)),
    history,
    decision: { decisionType: signal, level: 'L0', confidence: 0.8, conclusion: `round ${state.round + 1}: ${subtopicIds.length} gap-targeted tasks`, signals: { ...gapSignals, rule: 'gaps' } },
  };
}
