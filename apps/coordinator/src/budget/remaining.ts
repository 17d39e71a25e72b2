import { openReserved, type BudgetAccount } from './budget-account';

export interface BudgetFractions {
  tokens: number;
  tasks: number;
  rounds: number;
  wallSeconds: number;
  costUsd: number;
}

const clamp01 = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

/**
 * Fractions left per dimension (0..1). Open reservations count as spent (they are committed).
 * Rounds: (maxRounds - roundsStarted) / maxRounds. Wall: elapsed since startedAtMs against maxWallSeconds.
 * Dollars: settled and reserved cost against maxCostUsd.
 * This is what the judge takes as `state.budgetLeft`.
 */
export function remaining(state: BudgetAccount, nowMs: number): BudgetFractions {
  const open = openReserved(state);
  const b = state.budget;
  return {
    tokens: clamp01(1 - (state.used.tokens + open.tokens) / b.maxTokens),
    tasks: clamp01(1 - (state.used.tasks + open.tasks) / b.maxTasks),
    rounds: clamp01(1 - state.roundsStarted / b.maxRounds),
    wallSeconds: clamp01(1 - (nowMs - state.startedAtMs) / (b.maxWallSeconds * 1000)),
    costUsd: clamp01(1 - ((state.used.costUsd ?? 0) + open.costUsd) / b.maxCostUsd),
  };
}

/** The dimension with the least left, dollars included. */
export function tightestOf(f: BudgetFractions): { dimension: keyof BudgetFractions; fraction: number } {
  let best: { dimension: keyof BudgetFractions; fraction: number } = { dimension: 'tokens', fraction: f.tokens };
  for (const dimension of ['tasks', 'rounds', 'wallSeconds', 'costUsd'] as const) if (f[dimension] < best.fraction) best = { dimension, fraction: f[dimension] };
  return best;
}
