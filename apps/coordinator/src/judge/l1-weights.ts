// Written by `npm run train:judge`; do not edit by hand.
import type { L1Model } from './l1-model';

export const L1_MODEL: L1Model = {
  features: ['round', 'coverage', 'novelty', 'idleRounds', 'newFindings', 'newSources', 'newFacets', 'tasksDispatched', 'failedShare', 'budgetLeft', 'pivotCount'],
  mean: [1.529412, 0.946619, 0.552662, 0, 2.508832, 2.328967, 1.499663, 1.541288, 0, 0.742191, 0],
  scale: [0.55494, 0.090983, 0.136959, 1, 0.629539, 0.654512, 0.42681, 0.408194, 1, 0.089814, 1],
  weights: [0.004328, -0.960605, -0.692523, 0, -0.187928, -0.965527, 0.212256, 0.361994, 0, -0.546438, 0],
  bias: 1.354239,
  trainedOn: "half 0 of 68 topics (34 topics, 68 decisions) of labels.jsonl",
};
