// Written by `npm run train:judge`; do not edit by hand.
import type { L1Model } from './l1-model';

export const L1_MODEL: L1Model = {
  features: ['round', 'coverage', 'novelty', 'idleRounds', 'newFindings', 'newSources', 'newFacets', 'tasksDispatched', 'failedShare', 'pivotCount'],
  mean: [1.529412, 0.946619, 0.552662, 0, 2.508832, 2.328967, 1.499663, 1.541288, 0, 0],
  scale: [0.55494, 0.090983, 0.136959, 1, 0.629539, 0.654512, 0.42681, 0.408194, 1, 1],
  weights: [0.496593, -0.974105, -0.693569, 0, -0.199546, -0.986263, 0.221172, 0.377893, 0, 0],
  bias: 1.332938,
  min: [1, 0.666667, 0.222222, 0, 1.098612, 1.098612, 0.693147, 0.693147, 0, 0],
  max: [3, 1, 0.777778, 0, 3.401197, 3.332205, 2.197225, 2.197225, 0, 0],
  trainedOn: "half 0 of 68 topics (34 topics, 68 decisions) of orrery-judge-labels.jsonl",
};
