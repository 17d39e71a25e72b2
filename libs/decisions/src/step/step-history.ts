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

/** The last stop or pivot before `input.step`, counted as pivotHistory counts steps; null when there was none. */
export function lastNonContinueStep(input: Pick<StepJudgeInput, 'step' | 'history'>): { signal: 'stop' | 'pivot'; step: number } | null {
  const h = input.history ?? [];
  for (let i = h.length - 1; i >= 0; i--) {
    const e = h[i]!;
    const signal: StepSignal = typeof e === 'string' ? e : e.signal;
    const step = typeof e === 'string' ? input.step - (h.length - i) : e.step;
    if (signal !== 'continue' && step < input.step) return { signal, step };
  }
  return null;
}
