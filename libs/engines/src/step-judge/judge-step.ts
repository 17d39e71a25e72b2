import { z } from 'zod';
import { actionFacts } from './step-actions';
import { applyStepPivotGuards, stateVersionOf, stepRules } from './step-rules';
import { STEP_CONFIDENCE, STEP_DEFAULT_TIMEOUT_MS, STEP_ESCALATE_BELOW } from './step-thresholds';
import type { StepJudgeInput, StepJudgeOptions, StepRule, StepJudgeVerdict } from './step-judge-types';
import { shortError, withTimeout } from '../with-timeout';

/** The strict contract a model's answer must meet; anything else counts as no answer. */
const ModelVerdictSchema = z.strictObject({
  signal: z.enum(['continue', 'stop', 'pivot']),
  confidence: z.number().min(0).max(1),
  reasons: z.array(z.string().max(2000)).max(20),
});

/**
 * The step judge: L0 rules and pivot guards; when they are unsure (confidence < STEP_ESCALATE_BELOW),
 * judging is on and a model is given, the model (L2) under a deadline, its pivot through the same guards.
 * A model that times out, fails or breaks the contract counts as continue. Never rejects.
 */
export async function judgeStep(input: StepJudgeInput, opts: StepJudgeOptions = {}): Promise<StepJudgeVerdict> {
  const facts = actionFacts(input);
  const l0 = applyStepPivotGuards(stepRules(input, facts), input, facts);
  const model = opts.model;
  const ask = opts.escalate === 'always' ? l0.signal !== 'stop' : l0.confidence < STEP_ESCALATE_BELOW;
  if (opts.judgeEnabled === false || !model || !ask) return l0;

  const timeoutMs = opts.timeoutMs ?? STEP_DEFAULT_TIMEOUT_MS;
  const res = await withTimeout((signal) => model(input, { signal }), timeoutMs);
  if (res.status === 'timeout') return l2Fallback(input, l0, 'judge-model-timeout', `judge model timed out after ${timeoutMs} ms: counts as continue`);
  if (res.status === 'error') return l2Fallback(input, l0, 'judge-model-error', `judge model failed (${shortError(res.error)}): counts as continue`);
  const parsed = ModelVerdictSchema.safeParse(res.value);
  if (!parsed.success) return l2Fallback(input, l0, 'judge-model-invalid', 'judge model answer broke the output contract: counts as continue');
  const l2: StepJudgeVerdict = { ...parsed.data, level: 'L2', stateVersion: stateVersionOf(input), rule: 'judge-model', reasons: [...l0.reasons, ...parsed.data.reasons] };
  return applyStepPivotGuards(l2, input, facts);
}

function l2Fallback(input: StepJudgeInput, l0: StepJudgeVerdict, rule: StepRule, reason: string): StepJudgeVerdict {
  return { signal: 'continue', confidence: STEP_CONFIDENCE.l2Fallback, level: 'L2', reasons: [...l0.reasons, reason], stateVersion: stateVersionOf(input), rule };
}

