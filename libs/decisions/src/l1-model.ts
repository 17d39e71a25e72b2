import type { JudgeSignalValue, JudgeVerdict } from './judge-types';

/**
 * The L1 judge: a logistic regression over the round's signals (the L0 verdict's `signals`, which the
 * decision log records), giving P(stop). Local and allocation-light: a dot product of a dozen numbers.
 * Its weights are trained by `npm run train:judge` from oracle-labelled decision records (see bench/judge).
 */

/**
 * The inputs, each read from the L0 signals of the same name; counts enter as log(1 + n). The budget is not
 * one: L0's budget rules decide there, and a replay's budget (a cap of 6 rounds) is not a live run's. The last
 * five are the engine's forecast of the next round (RoundForecast).
 */
export const L1_FEATURES = [
  'round',
  'coverage',
  'novelty',
  'idleRounds',
  'newFindings',
  'newSources',
  'newFacets',
  'tasksDispatched',
  'failedShare',
  'pivotCount',
  'gapTasks',
  'expectedNewPassages',
  'uncoveredShare',
  'missingEvidence',
  'untouchedClusterShare',
] as const;
export type L1Feature = (typeof L1_FEATURES)[number];

const LOG_SCALED: ReadonlySet<L1Feature> = new Set(['newFindings', 'newSources', 'newFacets', 'tasksDispatched', 'gapTasks', 'expectedNewPassages', 'missingEvidence']);
/** Signals a run without a forecast lacks: a model that uses them abstains there rather than read a missing one as 0. */
const FORECAST: ReadonlySet<L1Feature> = new Set(['gapTasks', 'expectedNewPassages', 'uncoveredShare', 'missingEvidence', 'untouchedClusterShare']);

export interface L1Model {
  features: readonly L1Feature[];
  /** Standardisation: x' = (x - mean) / scale, per feature. */
  mean: readonly number[];
  scale: readonly number[];
  weights: readonly number[];
  bias: number;
  /** The range of each feature in the training data: a value outside it is read as the nearest end (see l1Clamp). */
  min: readonly number[];
  max: readonly number[];
  /** Where the weights came from, for the log and the docs. */
  trainedOn: string;
}

/** The feature vector of one decision's signals: a missing forecast is NaN, any other missing or non-numeric signal 0. */
export function l1Features(signals: Readonly<Record<string, JudgeSignalValue | readonly (string | number)[]>>, features: readonly L1Feature[] = L1_FEATURES): number[] {
  return features.map((f) => {
    const v = signals[f];
    const x = typeof v === 'number' && Number.isFinite(v) ? v : FORECAST.has(f) ? NaN : 0;
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

/**
 * The vector read inside the training range: a value past an end counts as that end. A logistic regression is
 * monotone in each feature, so the end is the most it learned there; extrapolating further would only add a
 * confidence no data backs. Returns the first feature clamped, for the log.
 */
export function l1Clamp(model: L1Model, x: readonly number[]): { x: number[]; clamped: L1Feature | null } {
  let clamped: L1Feature | null = null;
  const out = x.map((v, i) => {
    const c = Math.min(model.max[i]!, Math.max(model.min[i]!, v));
    if (c !== v && clamped === null) clamped = model.features[i]!;
    return c;
  });
  return { x: out, clamped };
}

/**
 * The L1 verdict on the round L0 just judged: stop when P(stop) >= 0.5, else continue (L1 never pivots);
 * confidence is the probability of the side it took. It abstains (confidence 0) only where a signal it was
 * trained on is missing (a run whose engine gives no forecast).
 */
export function l1Judge(l0: JudgeVerdict, model: L1Model): JudgeVerdict {
  const raw = l1Features(l0.signals, model.features);
  const missing = model.features.find((_, i) => Number.isNaN(raw[i]!)) ?? null;
  const { x, clamped } = l1Clamp(model, raw.map((v) => (Number.isNaN(v) ? 0 : v)));
  const p = l1StopProbability(model, x);
  const stop = p >= 0.5;
  return {
    signal: stop ? 'stop' : 'continue',
    confidence: missing ? 0 : round3(stop ? p : 1 - p),
    reason: missing ? `L1 model abstains: no ${missing} signal` : `L1 model: P(another round adds a section) ${round3(1 - p)}`,
    level: 'L1',
    stateVersion: l0.stateVersion,
    signals: { ...l0.signals, l0Signal: l0.signal, l0Confidence: l0.confidence, pStop: round3(p), ...(missing ? { missing } : {}), ...(clamped ? { clamped } : {}) },
  };
}
