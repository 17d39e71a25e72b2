import { foldsOf } from '../coverage/kfold-eval';
import { L1_FEATURES, l1Features, type L1Model } from '@orrery/decisions';
import { DEFAULT_FIT, fitLogistic, type FitOptions } from './logistic-fit';
import type { LabelledDecision } from './labelled-decision';

/** The fixed split: topics by hash into two halves; half 0 trains the committed model, half 1 is held back. */
export function halves(topics: readonly string[]): Map<string, number> {
  return foldsOf([...new Set(topics)], 2);
}

/** The round judge's L0 records: what L1 sees when it is asked. */
export const isRoundJudgeL0 = (r: LabelledDecision): boolean => r.decision.decisionType === 'judge' && r.decision.level === 'L0';

/**
 * Fits L1 on labelled round-judge decisions: features from the L0 record's signals, 1 = the oracle says stop.
 * A feature that never varies in the training data (coverage is 1 after nearly every replayed round; no replay
 * idles, fails or pivots) teaches nothing and is left out, so the model does not hold a live run to that value.
 */
export function trainL1(rows: readonly LabelledDecision[], trainedOn: string, o: FitOptions = DEFAULT_FIT): L1Model {
  const use = rows.filter(isRoundJudgeL0);
  const all = use.map((r) => l1Features(r.decision.signals));
  const varying = L1_FEATURES.filter((_, j) => all.every((x) => Number.isFinite(x[j]!)) && new Set(all.map((x) => x[j])).size > 1);
  return fitLogistic(
    use.map((r) => l1Features(r.decision.signals, varying)),
    use.map((r) => (r.oracle === 'stop' ? 1 : 0)),
    trainedOn,
    o,
    varying,
  );
}

/** The weights as the TypeScript module the coordinator imports. */
export function weightsModule(m: L1Model): string {
  const arr = (xs: readonly (number | string)[]): string => `[${xs.map((x) => (typeof x === 'string' ? `'${x}'` : String(x))).join(', ')}]`;
  return [
    '// Written by `npm run train:judge`; do not edit by hand.',
    "import type { L1Model } from './l1-model';",
    '',
    'export const L1_MODEL: L1Model = {',
    `  features: ${arr(m.features)},`,
    `  mean: ${arr(m.mean)},`,
    `  scale: ${arr(m.scale)},`,
    `  weights: ${arr(m.weights)},`,
    `  bias: ${m.bias},`,
    `  min: ${arr(m.min)},`,
    `  max: ${arr(m.max)},`,
    `  trainedOn: ${JSON.stringify(m.trainedOn)},`,
    '};',
    '',
  ].join('\n');
}
