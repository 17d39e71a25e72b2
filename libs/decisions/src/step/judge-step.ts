import { routeByConfidence } from '../ladder';
import { ModelVerdictSchema } from '../model-verdict';
import { CONFIDENCE, DEFAULT_JUDGE_TIMEOUT_MS } from '../thresholds';
import { shortError, withTimeout } from '../with-timeout';
import { actionFacts } from './step-actions';
import { applyStepPivotGuards, stateVersionOf, stepRules } from './step-rules';
import type { StepJudgeInput, StepJudgeOptions, StepJudgeVerdict, StepRule } from './step-judge-types';

/**
 * The step judge: L0 rules and pivot guards; when the ladder says the rules are unsure (escalate), judging is on
 * and a model is given, the model (L2) under a deadline, its pivot through the same guards. The ladder holds for
 * the model too: an answer below ESCALATE_BELOW is not acted on (the rules' verdict stands where it is sure
 * enough to act, else continue, flagged to escalate). A model that times out, fails or breaks the contract counts
 * as continue. Never rejects.
 */
export async function judgeStep(input: StepJudgeInput, opts: StepJudgeOptions = {}): Promise<StepJudgeVerdict> {
  const facts = actionFacts(input);
  const l0 = applyStepPivotGuards(stepRules(input, facts), input, facts);
  const model = opts.model;
  const ask = opts.escalate === 'always' ? l0.signal !== 'stop' : l0.route === 'escalate';
  if (opts.judgeEnabled === false || !model || !ask) return l0;

  const timeoutMs = opts.timeoutMs ?? DEFAULT_JUDGE_TIMEOUT_MS;
  const res = await withTimeout((signal) => model(input, { signal }), timeoutMs);
  if (res.status === 'timeout') return modelFallback(input, l0, 'judge-model-timeout', `judge model timed out after ${timeoutMs} ms: counts as continue`);
  if (res.status === 'error') return modelFallback(input, l0, 'judge-model-error', `judge model failed (${shortError(res.error)}): counts as continue`);
  const parsed = ModelVerdictSchema.safeParse(res.value);
  if (!parsed.success) return modelFallback(input, l0, 'judge-model-invalid', 'judge model answer broke the output contract: counts as continue');
  const { signal, confidence, reason } = parsed.data;
  const route = routeByConfidence(confidence);
  if (route === 'escalate') {
    const note = `judge model unsure (${signal} at ${confidence}): not acted on`;
    if (l0.route !== 'escalate') return { ...l0, reasons: [...l0.reasons, `${note}; the rules' verdict stands`] };
    return { signal: 'continue', confidence, level: 'L2', reasons: [...l0.reasons, reason, `${note} → continue`], stateVersion: stateVersionOf(input), rule: 'judge-model-unsure', route };
  }
  const l2: StepJudgeVerdict = { signal, confidence, level: 'L2', stateVersion: stateVersionOf(input), rule: 'judge-model', reasons: [...l0.reasons, reason], route };
  const guarded = applyStepPivotGuards(l2, input, facts);
  return { ...guarded, route: routeByConfidence(guarded.confidence) };
}

function modelFallback(input: StepJudgeInput, l0: StepJudgeVerdict, rule: StepRule, reason: string): StepJudgeVerdict {
  return { signal: 'continue', confidence: CONFIDENCE.modelFallback, level: 'L2', reasons: [...l0.reasons, reason], stateVersion: stateVersionOf(input), rule, route: routeByConfidence(CONFIDENCE.modelFallback) };
}
