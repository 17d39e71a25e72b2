// Written by `npm run train:judge`; do not edit by hand.
import type { L1Model } from './l1-model';

export const L1_MODEL: L1Model = {
  features: ['round', 'novelty', 'newFindings', 'newSources', 'newFacets', 'tasksDispatched', 'gapTasks', 'expectedNewPassages', 'uncoveredShare'],
  mean: [1.529412, 0.554628, 2.506868, 2.328967, 1.537057, 1.537057, 0.63389, 0.891068, 0.072779],
  scale: [0.55494, 0.135878, 0.631082, 0.654512, 0.411258, 0.411258, 0.681352, 0.941882, 0.084421],
  weights: [0.487423, -0.772557, -0.209604, -0.800985, 0.466168, 0.466168, 0.210424, -1.464324, 0.664398],
  bias: 1.202894,
  min: [1, 0.222222, 1.098612, 1.098612, 0.693147, 0.693147, 0, 0, 0],
  max: [3, 0.777778, 3.401197, 3.332205, 2.197225, 2.197225, 1.609438, 2.833213, 0.399],
  trainedOn: "half 0 of 68 topics (34 topics, 68 decisions) of labels-fc.jsonl",
};
