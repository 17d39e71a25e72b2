import type { StepJudgeInput, StepSignal } from './step-judge-types';

export interface PivotHistory {
  pivotCount: number;
  /** null when there was no earlier pivot. */
  lastPivotStep: number | null;
}

/** Pivots before `input.step`. A bare signal at index i of n counts as step `step - (n - i)`. */
export function pivotHistory(input: Pick<StepJudgeInput, 'step' | 'history'>): PivotHistory {
  const h = input.history;
  let pivotCount = 0;
  let lastPivotStep: number | null = null;
  if (!h) return { pivotCount, lastPivotStep };
  for (let i = 0; i < h.length; i++) {
    const e = h[i]!;
    const signal: StepSignal = typeof e === 'string' ? e : e.signal;
    const step = typeof e === 'string' ? input.step - (h.length - i) : e.step;
    if (signal !== 'pivot' || step >= input.step) continue;
    pivotCount++;
    if (lastPivotStep === null || step > lastPivotStep) lastPivotStep = step;
  }
  return { pivotCount, lastPivotStep };
}
