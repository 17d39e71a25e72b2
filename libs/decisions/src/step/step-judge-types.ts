import type { ConfidenceRoute } from '../ladder';
import type { ModelVerdict } from '../model-verdict';
/** Types of the step judge: a stateless continue/stop/pivot verdict for one step of any agent loop. */

export type StepSignal = 'continue' | 'stop' | 'pivot';
export type StepLevel = 'L0' | 'L2';

/** One recent action: a bare string (the action or query), or the action with what it brought. */
export interface StepAction {
  action: string;
  result?: string;
  /** Whether the action brought information the loop did not have; derived from `result` when absent. */
  newInformation?: boolean;
}

/** An earlier verdict; a bare signal counts as one per step, the last one at `step - 1`. */
export interface StepHistoryEntry {
  step: number;
  signal: StepSignal;
}

export interface StepJudgeInput {
  goal: string;
  /** The step being judged (1-based). */
  step: number;
  /** Oldest first. */
  recentActions?: ReadonlyArray<string | StepAction>;
  stateSummary: string;
  /** Earlier verdicts, oldest first: enables the pivot cooldown and cap. */
  history?: ReadonlyArray<StepSignal | StepHistoryEntry>;
  /** Echoed in the verdict so a caller can drop a verdict computed on an older state; `step` when absent. */
  stateVersion?: number;
  /** The loop's step budget: at or past it the judge says stop. */
  maxSteps?: number;
  /** Share (0..1) of the task's token and dollar budget still left, judge calls included: below TASK_BUDGET_WRAP_UP, stop. */
  budgetLeft?: number;
}

/** The rule that decided (logged). */
export type StepRule =
  | 'step-budget'
  | 'task-budget'
  | 'repeated-action'
  | 'idle-steps'
  | 'progress'
  | 'unsure'
  | 'pivot-cooldown-continue'
  | 'pivot-cooldown-stop'
  | 'pivot-cap-stop'
  | 'judge-model'
  | 'judge-model-unsure'
  | 'judge-model-timeout'
  | 'judge-model-error'
  | 'judge-model-invalid';

export interface StepJudgeVerdict {
  signal: StepSignal;
  /** 0..1: how sure the deciding level is. */
  confidence: number;
  level: StepLevel;
  reasons: string[];
  stateVersion: number;
  rule: StepRule;
  /** Where the ladder puts it: act, act and flag, or (a model unsure, the rules too) do not act and escalate. */
  route: ConfidenceRoute;
}

/** An L2 judge model: its answer must parse as ModelVerdictSchema. It may honour the abort signal (aborted on timeout). */
export type StepJudgeModel = (input: StepJudgeInput, ctx: { signal: AbortSignal }) => Promise<ModelVerdict>;

export interface StepJudgeOptions {
  /** The L2 model, asked only when the rules are unsure. */
  model?: StepJudgeModel;
  /** Deadline for the model; DEFAULT_JUDGE_TIMEOUT_MS when absent. */
  timeoutMs?: number;
  /** false = JUDGE=off: rules only, the model is never called. Default true. */
  judgeEnabled?: boolean;
  /** When the model is asked: only when the rules are unsure (default), or always unless the rules say stop (a scheduled check). */
  escalate?: 'when-unsure' | 'always';
}
