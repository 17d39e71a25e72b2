import type { Budget, RequestClass } from '@orrery/protocol';

export interface EffortCaps {
  /** Search tasks dispatched per round at most. */
  maxSubagentsPerRound: number;
  maxRounds: number;
  /** false: skip decomposition/coverage check/refinement; one search, then a direct cited answer. */
  fullPipeline: boolean;
  /** Findings a single search task may return. */
  maxFindingsPerTask: number;
}

/**
 * Effort scaled to the request (more subagents for breadth, more rounds for depth):
 * - straightforward: 1 search task, 1 round, direct cited answer;
 * - breadth: many parallel subtopics, few rounds;
 * - depth: fewer subtopics, more rounds to follow threads.
 * These are caps: the run's budget still applies.
 */
export const EFFORT: Readonly<Record<RequestClass, Readonly<EffortCaps>>> = Object.freeze({
  straightforward: Object.freeze({ maxSubagentsPerRound: 1, maxRounds: 1, fullPipeline: false, maxFindingsPerTask: 5 }),
  breadth: Object.freeze({ maxSubagentsPerRound: 12, maxRounds: 3, fullPipeline: true, maxFindingsPerTask: 8 }),
  depth: Object.freeze({ maxSubagentsPerRound: 4, maxRounds: 5, fullPipeline: true, maxFindingsPerTask: 10 }),
});

export function effortFor(cls: RequestClass): EffortCaps {
  return { ...EFFORT[cls] };
}
