import type { JudgeSignalValue, JudgeVerdict } from './judge-types';

/**
 * The L1 judge: a logistic regression over the round's signals (the L0 verdict's `signals`, which the
 * decision log records), giving P(stop). Local and allocation-light: a dot product of a dozen numbers.
 * Its weights are trained by `npm run train:judge` from oracle-labelled decision records (see bench/judge).
 */

/**
 * The inputs, each read from the L0 signals of the same name; counts enter as log(1 + n). The budget is not
 * one: L0's budget rules decide there, and a replay's budget (a cap of 6 rounds) is not a live run's.
 */
export const L1_FEATURES = ['round', 'coverage', 'novelty', 'idleRounds', 'newFindings', 'newSources', 'newFacets', 'tasksDispatched', 'failedShare', 'pivotCount'] as const;
export type L1Feature = (typeof L1_FEATURES)[number];

const LOG_SCALED: ReadonlySet<L1Feature> = new Set(['newFindings', 'newSources', 'newFacets', 'tasksDispatched']);

export interface L1Model {
  features: readonly L1Feature[];
  /** Standardisation: x' = (x - mean) / scale, per feature. */
  mean: readonly number[];
  scale: readonly number[];
  weights: readonly number[];
  bias: number;
  /** The range of each feature in the training data: outside it (by more than RANGE_SLACK of its width) L1 abstains. */
  min: readonly number[];
  max: readonly number[];
  /** Where the weights came from, for the log and the docs. */
  trainedOn: string;
}

/** The feature vector of one decision's signals (a missing or non-numeric signal counts as 0). */
export function l1Features(signals: Readonly<Record<string, JudgeSignalValue | readonly (string | number)[]>>, features: readonly L1Feature[] = L1_FEATURES): number[] {
  return features.map((f) => {
    const v = signals[f];
    const x = typeof v === 'number' && Number.isFinite(v) ? v : 0;
    return LOG_SCALED.has(f) ? Math.log1p(Math.max(0, x)) : x;
  });
}

/** P(stop) for a feature vector. */
export function l1StopProbability(model: L1Model, x: readonly number[]): number {
  let z = model.bias;
  for (let i = 0; i < model.weights.length; i++) z += model.weights[i]! * ((x[i]! - model.mean[i]!) / (model.scale[i]! || 1));
  return 1 / (1 + Math.exp(-z));
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** How far past the training range (as a share of its width, at least this much absolute) a feature may go. */
const RANGE_SLACK = 0.1;

/** The first feature outside the model's training range, or null: a regression extrapolates with confidence, so it must not speak there. */
export function l1OutOfRange(model: L1Model, x: readonly number[]): L1Feature | null {
  for (let i = 0; i < model.features.length; i++) {
    const lo = model.min[i]!;
    const hi = model.max[i]!;
    const slack = Math.max(RANGE_SLACK * (hi - lo), 1e-6);
    if (!(x[i]! >= lo - slack && x[i]! <= hi + slack)) return model.features[i]!;
  }
  return null;
}

/**
 * The L1 verdict on the round L0 just judged: stop when P(stop) >= 0.5, else continue (L1 never pivots);
 * confidence is the probability of the side it took, and 0 when a feature lies outside the training range.
 */
export function l1Judge(l0: JudgeVerdict, model: L1Model): JudgeVerdict {
  const x = l1Features(l0.signals, model.features);
  const p = l1StopProbability(model, x);
  const stop = p >= 0.5;
  const outside = l1OutOfRange(model, x);
  return {
    signal: stop ? 'stop' : 'continue',
    confidence: outside ? 0 : round3(stop ? p : 1 - p),
    reason: outside ? `L1 model abstains: ${outside} outside its training range` : `L1 model: P(another round adds a section) ${round3(1 - p)}`,
    level: 'L1',
    stateVersion: l0.stateVersion,
    signals: { ...l0.signals, l0Signal: l0.signal, l0Confidence: l0.confidence, pStop: round3(p), ...(outside ? { outOfRange: outside } : {}) },
  };
}
