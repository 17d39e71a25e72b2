// Written by `npm run train:judge`; do not edit by hand.
import type { L1Model } from './l1-model';

export const L1_MODEL: L1Model = {
  features: ['round', 'novelty', 'newFindings', 'newSources', 'newFacets', 'tasksDispatched', 'gapTasks', 'expectedNewPassages', 'uncoveredShare', 'missingEvidence', 'untouchedClusterShare'],
  mean: [1.529412, 0.553481, 2.505641, 2.328967, 1.537057, 1.537057, 0.63389, 0.891068, 0.072779, 1.093353, 0.146368],
  scale: [0.55494, 0.134036, 0.629382, 0.654512, 0.411258, 0.411258, 0.681352, 0.941882, 0.084421, 0.913688, 0.152699],
  weights: [0.288555, -0.846773, -0.17614, -0.924286, 0.423886, 0.423886, 0.242798, -1.121466, 1.230336, 0.105084, -1.073594],
  bias: 1.272863,
  min: [1, 0.222222, 1.098612, 1.098612, 0.693147, 0.693147, 0, 0, 0, 0, 0],
  max: [3, 0.777778, 3.401197, 3.332205, 2.197225, 2.197225, 1.609438, 2.833213, 0.399, 2.944439, 0.765],
  trainedOn: "half 0 of 68 topics (34 topics, 68 decisions) of orrery-judge-labels.jsonl",
};
