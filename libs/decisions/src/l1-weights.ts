// Written by `npm run train:judge`; do not edit by hand.
import type { L1Model } from './l1-model';

export const L1_MODEL: L1Model = {
  features: ['round', 'coverage', 'novelty', 'idleRounds', 'newFindings', 'newSources', 'newFacets', 'tasksDispatched', 'failedShare', 'pivotCount'],
  mean: [1.529412, 1, 0.554628, 0, 2.506868, 2.328967, 1.537057, 1.537057, 0, 0],
  scale: [0.55494, 1, 0.135878, 1, 0.631082, 0.654512, 0.411258, 0.411258, 1, 1],
  weights: [0.545204, 0, -0.838581, 0, -0.301515, -1.055006, 0.337065, 0.337065, 0, 0],
  bias: 1.056841,
  min: [1, 1, 0.222222, 0, 1.098612, 1.098612, 0.693147, 0.693147, 0, 0],
  max: [3, 1, 0.777778, 0, 3.401197, 3.332205, 2.197225, 2.197225, 0, 0],
  trainedOn: "half 0 of 68 topics (34 topics, 68 decisions) of jq-labels.jsonl",
};
