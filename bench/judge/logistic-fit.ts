import { L1_FEATURES, type L1Feature, type L1Model } from '@orrery/decisions';

export interface FitOptions {
  /** L2 penalty on the weights (not the bias), per example. */
  lambda: number;
  iterations: number;
  learningRate: number;
  /**
   * Weigh each class by n / (2 * its count), so the rarer label counts as much as the common one. On the
   * FreshWiki replay four decision points in five are stops: unweighted, the model learns to stop after round 1
   * and loses the sections round 2 would add; a wrong stop costs more than one more round.
   */
  balanced: boolean;
}

export const DEFAULT_FIT: FitOptions = { lambda: 0.01, iterations: 3000, learningRate: 0.5, balanced: true };

/**
 * Logistic regression with L2 regularisation, by full-batch gradient descent on standardised features
 * (a few hundred rows of a dozen features: milliseconds), classes optionally balanced. `y[i]` is 1 for stop.
 * Deterministic.
 */
export function fitLogistic(x: readonly (readonly number[])[], y: readonly number[], trainedOn: string, o: FitOptions = DEFAULT_FIT, features: readonly L1Feature[] = L1_FEATURES): L1Model {
  const n = x.length;
  const d = features.length;
  if (n === 0) throw new Error('no labelled decisions to train on');
  const mean = Array.from({ length: d }, (_, j) => x.reduce((s, r) => s + r[j]!, 0) / n);
  const scale = mean.map((m, j) => Math.sqrt(x.reduce((s, r) => s + (r[j]! - m) ** 2, 0) / n) || 1);
  const z = x.map((r) => r.map((v, j) => (v - mean[j]!) / scale[j]!));
  const positives = y.filter((v) => v === 1).length;
  const classWeight = (v: number): number => (!o.balanced || positives === 0 || positives === n ? 1 : n / (2 * (v === 1 ? positives : n - positives)));
  const cw = y.map(classWeight);
  const w = new Array<number>(d).fill(0);
  let b = 0;
  for (let it = 0; it < o.iterations; it++) {
    const gw = new Array<number>(d).fill(0);
    let gb = 0;
    for (let i = 0; i < n; i++) {
      let t = b;
      for (let j = 0; j < d; j++) t += w[j]! * z[i]![j]!;
      const err = (1 / (1 + Math.exp(-t)) - y[i]!) * cw[i]!;
      gb += err;
      for (let j = 0; j < d; j++) gw[j]! += err * z[i]![j]!;
    }
    for (let j = 0; j < d; j++) w[j]! -= o.learningRate * (gw[j]! / n + o.lambda * w[j]!);
    b -= o.learningRate * (gb / n);
  }
  const r6 = (v: number): number => Math.round(v * 1e6) / 1e6;
  const min = Array.from({ length: d }, (_, j) => Math.min(...x.map((r) => r[j]!)));
  const max = Array.from({ length: d }, (_, j) => Math.max(...x.map((r) => r[j]!)));
  return { features: [...features], mean: mean.map(r6), scale: scale.map(r6), weights: w.map(r6), bias: r6(b), min: min.map(r6), max: max.map(r6), trainedOn };
}
