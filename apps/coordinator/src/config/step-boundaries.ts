/** The points inside a run's steps where a coordinator can be stopped between two writes. */
export const STEP_BOUNDARIES = [
  'plan.started',
  'plan.made',
  'plan.proposed',
  'plan.committed',
  'tasks.recorded',
  'round.announced',
  'round.dispatched',
  'results.collected',
  'results.merged',
  'round.judged',
  'round.decided',
  'review.answered',
  'writer.dispatched',
  'draft.checked',
  'report.stored',
  'run.ended',
  'webhook.sending',
] as const;
export type StepBoundary = (typeof STEP_BOUNDARIES)[number];
