// Written by `npm run train:judge`; do not edit by hand.
import type { L1Model } from './l1-model';

export const L1_MODEL: L1Model = {
  features: ['round', 'coverage', 'novelty', 'idleRounds', 'newFindings', 'newSources', 'newFacets', 'tasksDispatched', 'failedShare', 'budgetLeft', 'pivotCount'],
  mean: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
  scale: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
  weights: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
  bias: 0,
  trainedOn: 'untrained',
};
