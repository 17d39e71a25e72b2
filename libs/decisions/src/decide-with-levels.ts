import { CONFIDENCE, DEFAULT_JUDGE_COMPLEX_TIMEOUT_MS, DEFAULT_JUDGE_TIMEOUT_MS, ESCALATE_BELOW, L1_ACT_AT, UNSURE_L2_IN_ROW_FOR_REVIEW } from './thresholds';
import type { JudgeInput, JudgeVerdict } from './judge-types';
import { judgeOffVerdict } from './judge-off';
import { l0Rules } from './l0-judge';
import { l1Judge, type L1Model } from './l1-model';
import { L1_MODEL } from './l1-weights';
import { buildReviewSummary, type ReviewSummary } from './review-summary';
import { routeByConfidence, type ConfidenceRoute } from './ladder';
import { type ModelVerdict, ModelVerdictSchema } from './model-verdict';
import { shortError, withTimeout } from './with-timeout';

/** An L2 judge (a model): its answer must parse as ModelVerdictSchema. It may honour the abort signal. */
export type L2Judge = (input: JudgeInput, ctx: { signal: AbortSignal }) => Promise<ModelVerdict>;

export interface DecideOptions {
  l2?: L2Judge;
  /** Deadline for the L2 call; DEFAULT_JUDGE_TIMEOUT_MS (3000) when absent. */
  timeoutMs?: number;
  /** Deadline for the L2 call on a complex decision (isComplexDecision); DEFAULT_JUDGE_COMPLEX_TIMEOUT_MS when absent. */
  complexTimeoutMs?: number;
  /** false = JUDGE=off: rules only, conservative defaults, never L1 or L2. */
  judgeEnabled: boolean;
  /** The L1 model; the committed weights (l1-weights.ts) when absent, none when null. */
  l1?: L1Model | null;
}

export type DecisionFlag =
  | 'act-and-flag'
  | 'judge-off'
  | 'no-l2'
  | 'l1-unsure'
  | 'low-confidence-fallback'
  | 'l2-timeout'
  | 'l2-error'
  | 'l2-invalid'
  | 'l2-unsure'
  | 'needs-review';

export interface LeveledDecision {
  /** 'act': apply `verdict.signal`. 'needs_review': pause the run as needs_review with `review` (L3). */
  outcome: 'act' | 'needs_review';
  /** The final verdict. For needs_review it is level L3 and carries the last machine signal, for the log. */
  verdict: JudgeVerdict;
  route: ConfidenceRoute;
  flags: DecisionFlag[];
  /** Every verdict considered, in order (L0, then L1 and L2 if asked), for the decision log. */
  trail: JudgeVerdict[];
  review?: ReviewSummary;
  /** Time spent in L2, when called. */
  l2Ms?: number;
}

/**
 * System 1 then System 2 (the round policy, nextMove, has already taken the budget, and applies the pivot
 * guards to whatever verdict this returns):
 * 1. JUDGE=off → judgeOffVerdict (never pivots, never escalates);
 * 2. L0; confidence > 0.8 → act;
 * 3. otherwise L1 (local, microseconds); its confidence >= L1_ACT_AT → act on it (flagged when <= 0.8);
 * 4. L1 unsure and L0 >= 0.5 → act on L0, flagged (as without L1);
 * 5. L0 < 0.5 and an L2 is given → L2 with a timeout. Timeout/error/contract breach → `continue`
 *    (confidence 0.5, flagged). A valid L2 verdict that is also unsure (< 0.5) is not acted on: the first in a
 *    row counts as `continue` (flagged `l2-unsure`, counted in the history), the second in a row goes to a person (L3);
 * 6. L0 < 0.5 and no L2 → the conservative fallback: act on `continue` (a wrong stop costs more
 *    than one more round), flagged.
 */
export async function decideWithLevels(input: JudgeInput, opts: DecideOptions): Promise<LeveledDecision> {
  const first = opts.judgeEnabled ? l0Rules(input) : judgeOffVerdict(input);
  const trail: JudgeVerdict[] = [first];

  if (!opts.judgeEnabled) {
    const route = routeByConfidence(first.confidence);
    return { outcome: 'act', verdict: first, route, flags: ['judge-off', ...(route === 'act' ? [] : (['act-and-flag'] as const))], trail };
  }

  const route0 = routeByConfidence(first.confidence);
  if (route0 === 'act') return { outcome: 'act', verdict: first, route: route0, flags: [], trail };

  const model = opts.l1 === undefined ? L1_MODEL : opts.l1;
  const l1Flags: DecisionFlag[] = [];
  if (model) {
    const v1 = l1Judge(first, model);
    trail.push(v1);
    if (v1.confidence >= L1_ACT_AT) {
      const route1 = routeByConfidence(v1.confidence);
      return { outcome: 'act', verdict: v1, route: route1, flags: route1 === 'act' ? [] : ['act-and-flag'], trail };
    }
    l1Flags.push('l1-unsure');
  }
  if (route0 === 'act-and-flag') return { outcome: 'act', verdict: first, route: route0, flags: [...l1Flags, 'act-and-flag'], trail };

  if (!opts.l2) {
    const v = first.signal === 'continue' ? first : fallbackContinue(first, `L0 unsure (${first.confidence}) and no L2: ${first.signal} → continue`);
    return { outcome: 'act', verdict: v, route: 'escalate', flags: [...l1Flags, 'no-l2', 'low-confidence-fallback'], trail };
  }

  const l2 = opts.l2;
  const timeoutMs = judgeBudgetMs(first, opts);
  const res = await withTimeout((signal) => l2(input, { signal }), timeoutMs);
  if (res.status !== 'ok') {
    const flag = res.status === 'timeout' ? 'l2-timeout' : 'l2-error';
    const why = res.status === 'timeout' ? `L2 judge timed out after ${timeoutMs} ms` : `L2 judge failed: ${shortError(res.error)}`;
    const v = l2Fallback(input, why, flag);
    trail.push(v);
    return { outcome: 'act', verdict: v, route: routeByConfidence(v.confidence), flags: [...l1Flags, flag, 'act-and-flag'], trail, l2Ms: res.ms };
  }
  const parsed = ModelVerdictSchema.safeParse(res.value);
  if (!parsed.success) {
    const v = l2Fallback(input, 'L2 verdict broke the output contract', 'l2-invalid');
    trail.push(v);
    return { outcome: 'act', verdict: v, route: routeByConfidence(v.confidence), flags: [...l1Flags, 'l2-invalid', 'act-and-flag'], trail, l2Ms: res.ms };
  }
  const second: JudgeVerdict = { ...parsed.data, level: 'L2', stateVersion: input.stateVersion, signals: { model: true } };
  trail.push(second);
  if (second.confidence < ESCALATE_BELOW) {
    if ((input.history.unsureInRow ?? 0) + 1 >= UNSURE_L2_IN_ROW_FOR_REVIEW) return { ...review(input, 'judge-unsure', second, trail, l1Flags), l2Ms: res.ms };
    const v: JudgeVerdict = { ...fallbackContinue(second, `L2 unsure (${second.signal} at ${second.confidence}): not acted on → continue`), signals: { ...second.signals, proposedSignal: second.signal, l2Unsure: true } };
    trail.push(v);
    return { outcome: 'act', verdict: v, route: 'escalate', flags: [...l1Flags, 'l2-unsure', 'low-confidence-fallback'], trail, l2Ms: res.ms };
  }
  const route2 = routeByConfidence(second.confidence);
  return { outcome: 'act', verdict: second, route: route2, flags: [...l1Flags, ...(route2 === 'act' ? [] : (['act-and-flag'] as const))], trail, l2Ms: res.ms };
}

/** A decision the rules would have change the run's course (stop or pivot): the model gets the longer budget. */
export const isComplexDecision = (l0: JudgeVerdict): boolean => l0.signal !== 'continue';

/** How long the model may take on this decision; past it the lower level's conservative answer stands. */
export function judgeBudgetMs(l0: JudgeVerdict, opts: Pick<DecideOptions, 'timeoutMs' | 'complexTimeoutMs'>): number {
  const normal = opts.timeoutMs ?? DEFAULT_JUDGE_TIMEOUT_MS;
  return isComplexDecision(l0) ? Math.max(normal, opts.complexTimeoutMs ?? DEFAULT_JUDGE_COMPLEX_TIMEOUT_MS) : normal;
}

function review(
  input: JudgeInput,
  cause: 'judge-unsure',
  last: JudgeVerdict,
  trail: JudgeVerdict[],
  flags: DecisionFlag[],
): LeveledDecision {
  const summary = buildReviewSummary(input, cause, trail);
  const verdict: JudgeVerdict = {
    ...last,
    level: 'L3',
    reason: `needs review (${cause}): ${last.reason}`,
    signals: { ...last.signals, escalatedFrom: last.level, reviewCause: cause },
  };
  return { outcome: 'needs_review', verdict, route: 'escalate', flags: [...flags, 'needs-review'], trail: [...trail, verdict], review: summary };
}

function fallbackContinue(v: JudgeVerdict, reason: string): JudgeVerdict {
  return { ...v, signal: 'continue', reason, signals: { ...v.signals, proposedSignal: v.signal, fallback: true } };
}

function l2Fallback(input: JudgeInput, why: string, flag: DecisionFlag): JudgeVerdict {
  return {
    signal: 'continue',
    confidence: CONFIDENCE.modelFallback,
    reason: `${why}: counts as continue`,
    level: 'L2',
    stateVersion: input.stateVersion,
    signals: { fallback: flag },
  };
}

