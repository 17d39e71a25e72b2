import { routeByConfidence } from '../ladder';
import { actionFacts, type ActionFacts } from './step-actions';
import { pivotHistory } from './step-history';
import { pivotGuard } from '../pivot-guard';
import { CONFIDENCE, IDLE_THRESHOLD, REPEATED_ACTION_THRESHOLD, WRAP_UP_FRACTION } from '../thresholds';
import type { StepJudgeInput, StepJudgeVerdict } from './step-judge-types';

/** The verdict's state version: the caller's, else the step. */
export const stateVersionOf = (input: Pick<StepJudgeInput, 'step' | 'stateVersion'>): number => input.stateVersion ?? input.step;

/**
 * The step rules alone, before the pivot guards. Pure, synchronous, microseconds. First match wins:
 *  1. step-budget: maxSteps given and step >= maxSteps → stop (0.99);
 *     task-budget: budgetLeft given and < WRAP_UP_FRACTION (0.15) → stop (0.99)
 *  2. repeated-action: the newest action occurs >= REPEATED_ACTION_THRESHOLD (3) times in the window → pivot (0.85)
 *  3. idle-steps: >= IDLE_THRESHOLD (3) trailing actions without new information → pivot (0.85)
 *  4. progress: the newest action brought new information → continue (0.9)
 *  5. unsure: otherwise continue (0.4), which lets a judge model decide
 */
export function stepRules(input: StepJudgeInput, facts: ActionFacts = actionFacts(input)): StepJudgeVerdict {
  const stateVersion = stateVersionOf(input);
  const verdict = (signal: StepJudgeVerdict['signal'], confidence: number, rule: StepJudgeVerdict['rule'], reason: string): StepJudgeVerdict => ({
    signal,
    confidence,
    level: 'L0',
    reasons: [reason],
    stateVersion,
    rule,
    route: routeByConfidence(confidence),
  });
  if (input.maxSteps !== undefined && input.step >= input.maxSteps) {
    return verdict('stop', CONFIDENCE.budgetExhausted, 'step-budget', `step budget spent (step ${input.step} of ${input.maxSteps})`);
  }
  if (input.budgetLeft !== undefined && input.budgetLeft < WRAP_UP_FRACTION) {
    return verdict('stop', CONFIDENCE.budgetExhausted, 'task-budget', `${Math.round(input.budgetLeft * 100)}% of the task's budget left: wrap up with what it has`);
  }
  if (facts.lastActionRepeats >= REPEATED_ACTION_THRESHOLD) {
    return verdict('pivot', CONFIDENCE.repeatedAction, 'repeated-action', `the last action was repeated ${facts.lastActionRepeats} times in the recent actions`);
  }
  if (facts.idleSteps >= IDLE_THRESHOLD) {
    return verdict('pivot', CONFIDENCE.idleSteps, 'idle-steps', `${facts.idleSteps} steps in a row brought no new information`);
  }
  if (facts.lastBroughtInformation) {
    return verdict('continue', CONFIDENCE.progress, 'progress', 'the last action brought new information');
  }
  const why =
    facts.actionsSeen === 0
      ? 'no recent actions to judge progress by'
      : facts.idleSteps > 0
        ? `${facts.idleSteps} idle step(s), below the threshold of ${IDLE_THRESHOLD}`
        : 'the recent actions do not say whether they brought new information';
  return verdict('continue', CONFIDENCE.unsure, 'unsure', why);
}

/** The pivot guards (pivot-guard.ts), counted in steps, applied to any level's pivot. */
export function applyStepPivotGuards(verdict: StepJudgeVerdict, input: StepJudgeInput, facts: ActionFacts = actionFacts(input)): StepJudgeVerdict {
  if (verdict.signal !== 'pivot') return verdict;
  const { pivotCount, lastPivotStep } = pivotHistory(input);
  const sincePivot = lastPivotStep === null ? null : input.step - lastPivotStep;
  const dead = facts.idleSteps >= IDLE_THRESHOLD || facts.lastActionRepeats >= REPEATED_ACTION_THRESHOLD;
  const g = pivotGuard({ unit: 'step', pivotCount, sincePivot, dead });
  if (g.guard === 'none') return verdict;
  const confidence = g.confidence ?? Math.max(verdict.confidence, CONFIDENCE.guardStop);
  return { ...verdict, signal: g.signal, confidence, rule: g.guard, reasons: [...verdict.reasons, g.note!], route: routeByConfidence(confidence) };
}

/** L0: the rules, then the pivot guards. */
export function stepJudgeL0(input: StepJudgeInput): StepJudgeVerdict {
  const facts = actionFacts(input);
  return applyStepPivotGuards(stepRules(input, facts), input, facts);
}
