import { actionFacts, type ActionFacts } from './step-actions';
import { pivotHistory } from './step-history';
import { IDLE_STEPS_THRESHOLD, REPEATED_ACTION_THRESHOLD, STEP_CONFIDENCE, STEP_MAX_PIVOTS, STEP_PIVOT_COOLDOWN, TASK_BUDGET_WRAP_UP } from './step-thresholds';
import type { StepJudgeInput, StepJudgeVerdict } from './step-judge-types';

/** The verdict's state version: the caller's, else the step. */
export const stateVersionOf = (input: Pick<StepJudgeInput, 'step' | 'stateVersion'>): number => input.stateVersion ?? input.step;

/**
 * The step rules alone, before the pivot guards. Pure, synchronous, microseconds. First match wins:
 *  1. step-budget: maxSteps given and step >= maxSteps → stop (0.99);
 *     task-budget: budgetLeft given and < TASK_BUDGET_WRAP_UP (0.15) → stop (0.99)
 *  2. repeated-action: the newest action occurs >= REPEATED_ACTION_THRESHOLD (3) times in the window → pivot (0.85)
 *  3. idle-steps: >= IDLE_STEPS_THRESHOLD (3) trailing actions without new information → pivot (0.85)
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
  });
  if (input.maxSteps !== undefined && input.step >= input.maxSteps) {
    return verdict('stop', STEP_CONFIDENCE.budgetExhausted, 'step-budget', `step budget spent (step ${input.step} of ${input.maxSteps})`);
  }
  if (input.budgetLeft !== undefined && input.budgetLeft < TASK_BUDGET_WRAP_UP) {
    return verdict('stop', STEP_CONFIDENCE.budgetExhausted, 'task-budget', `${Math.round(input.budgetLeft * 100)}% of the task's budget left: wrap up with what it has`);
  }
  if (facts.lastActionRepeats >= REPEATED_ACTION_THRESHOLD) {
    return verdict('pivot', STEP_CONFIDENCE.repeatedAction, 'repeated-action', `the last action was repeated ${facts.lastActionRepeats} times in the recent actions`);
  }
  if (facts.idleSteps >= IDLE_STEPS_THRESHOLD) {
    return verdict('pivot', STEP_CONFIDENCE.idle, 'idle-steps', `${facts.idleSteps} steps in a row brought no new information`);
  }
  if (facts.lastBroughtInformation) {
    return verdict('continue', STEP_CONFIDENCE.progress, 'progress', 'the last action brought new information');
  }
  const why =
    facts.actionsSeen === 0
      ? 'no recent actions to judge progress by'
      : facts.idleSteps > 0
        ? `${facts.idleSteps} idle step(s), below the threshold of ${IDLE_STEPS_THRESHOLD}`
        : 'the recent actions do not say whether they brought new information';
  return verdict('continue', STEP_CONFIDENCE.unsure, 'unsure', why);
}

/**
 * The round judge's anti-oscillation guards, counted in steps, applied to any level's pivot:
 * - cooldown: fewer than STEP_PIVOT_COOLDOWN steps since the last pivot → stop when the path is dead
 *   (idle or repeating at threshold: the last pivot did not help), else continue;
 * - cap: STEP_MAX_PIVOTS pivots already made → stop.
 */
export function applyStepPivotGuards(verdict: StepJudgeVerdict, input: StepJudgeInput, facts: ActionFacts = actionFacts(input)): StepJudgeVerdict {
  if (verdict.signal !== 'pivot') return verdict;
  const { pivotCount, lastPivotStep } = pivotHistory(input);
  const since = lastPivotStep === null ? null : input.step - lastPivotStep;
  if (since !== null && since < STEP_PIVOT_COOLDOWN) {
    const dead = facts.idleSteps >= IDLE_STEPS_THRESHOLD || facts.lastActionRepeats >= REPEATED_ACTION_THRESHOLD;
    const cooldown = `pivot cooldown: ${since} < ${STEP_PIVOT_COOLDOWN} steps since the last pivot`;
    return dead
      ? { ...verdict, signal: 'stop', confidence: STEP_CONFIDENCE.guardStop, rule: 'pivot-cooldown-stop', reasons: [...verdict.reasons, `${cooldown} and the path is still dead → stop`] }
      : { ...verdict, signal: 'continue', confidence: STEP_CONFIDENCE.guardContinue, rule: 'pivot-cooldown-continue', reasons: [...verdict.reasons, `${cooldown} → continue`] };
  }
  if (pivotCount >= STEP_MAX_PIVOTS) {
    return {
      ...verdict,
      signal: 'stop',
      confidence: Math.max(verdict.confidence, STEP_CONFIDENCE.guardStop),
      rule: 'pivot-cap-stop',
      reasons: [...verdict.reasons, `pivot cap: ${pivotCount} >= ${STEP_MAX_PIVOTS} pivots already → stop`],
    };
  }
  return verdict;
}

/** L0: the rules, then the pivot guards. */
export function stepJudgeL0(input: StepJudgeInput): StepJudgeVerdict {
  const facts = actionFacts(input);
  return applyStepPivotGuards(stepRules(input, facts), input, facts);
}
