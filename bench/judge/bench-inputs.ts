import type { JudgeInput } from '@orrery/decisions';
import { prng } from '../support/prng';

/** Varied judge inputs spanning every rule: budget stops, saturation, pivots (with and without guards), healthy, ambiguous. */
export function benchInputs(n: number, seed = 42): JudgeInput[] {
  const r = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const out: JudgeInput[] = [];
  for (let i = 0; i < n; i++) {
    const round = 1 + Math.floor(r() * 12);
    const idle = r() < 0.2;
    const dispatched = 1 + Math.floor(r() * 6);
    const subtopics = Array.from({ length: 2 + Math.floor(r() * 6) }, (_, k) => ({ id: `s${k}`, title: `Subtopic ${k}`, evidenceCount: Math.floor(r() * 6) }));
    const lastPivot = r() < 0.5 ? Math.max(0, round - Math.floor(r() * 5)) : null;
    out.push({
      goal: pick(['immigration', 'trade policy since 1945', 'energy independence', 'civil rights']),
      round,
      lastActions: {
        tasksDispatched: dispatched,
        tasksFailed: r() < 0.1 ? Math.ceil(dispatched / 2) : 0,
        newSources: idle ? 0 : Math.floor(r() * 10),
        newFindings: idle ? 0 : Math.floor(r() * 12),
        newFacets: Math.floor(r() * 4),
      },
      state: {
        subtopics,
        coverage: r(),
        novelty: pick([0, 0.02, 0.049, 0.05, 0.1, 0.14, 0.15, 0.2, 0.29, 0.3, 0.5, 0.9]),
        budgetLeft: {
          tokens: r() < 0.05 ? 0 : r(),
          tasks: r() < 0.1 ? 0.1 : 0.2 + 0.8 * r(),
          rounds: 0.2 + 0.8 * r(),
          wallSeconds: 0.16 + 0.84 * r(),
        },
        ...(idle ? { idleRounds: 1 + Math.floor(r() * 4) } : {}),
      },
      history: {
        lastNonContinue: lastPivot === null ? null : { signal: 'pivot', round: lastPivot },
        lastPivotRound: lastPivot,
        pivotCount: lastPivot === null ? 0 : 1 + Math.floor(r() * 6),
      },
      stateVersion: i,
      targetCoverage: pick([0.7, 0.8, 0.9]),
    });
  }
  return out;
}
