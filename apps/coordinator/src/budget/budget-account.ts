import type { Budget } from '@orrery/protocol';

/** One reservation, made before a dispatch; settled task by task. Kept after it closes, so a replayed reserve is a no-op. */
export interface BudgetReservation {
  id: string;
  granted: { tasks: number; tokens: number; costUsd: number };
  tasksOpen: number;
  tokensOpen: number;
  costOpen: number;
}

/**
 * The budget account of one run: a plain, JSON-serializable object the coordinator stores in Redis
 * (beside the run, written under the same state version). Every operation is a pure function
 * returning a new state; the input state is never mutated.
 */
export interface BudgetAccount {
  budget: Budget;
  startedAtMs: number;
  roundsStarted: number;
  /** Settled actual usage. */
  used: { tokens: number; tasks: number; costUsd: number };
  reservations: Record<string, BudgetReservation>;
  /** Settlement keys (task ids by default) already applied, with the tokens they counted: the idempotence record. */
  settled: Record<string, number>;
  /** Token charges outside tasks (planning, L2 judge, synthesis...), by idempotence key. */
  charges: Record<string, number>;
}

export function openBudgetAccount(budget: Budget, startedAtMs: number): BudgetAccount {
  return { budget: { ...budget }, startedAtMs, roundsStarted: 0, used: { tokens: 0, tasks: 0, costUsd: 0 }, reservations: {}, settled: {}, charges: {} };
}

/** Open (reserved, not yet settled) amounts across reservations. */
export function openReserved(state: BudgetAccount): { tasks: number; tokens: number; costUsd: number } {
  let tasks = 0;
  let tokens = 0;
  let costUsd = 0;
  for (const r of Object.values(state.reservations)) {
    tasks += r.tasksOpen;
    tokens += r.tokensOpen;
    costUsd += r.costOpen ?? 0;
  }
  return { tasks, tokens, costUsd };
}

/** Absolute amounts still available for new reservations (never negative). */
export function available(state: BudgetAccount): { tasks: number; tokens: number; rounds: number; costUsd: number } {
  const open = openReserved(state);
  return {
    tasks: Math.max(0, state.budget.maxTasks - state.used.tasks - open.tasks),
    tokens: Math.max(0, state.budget.maxTokens - state.used.tokens - open.tokens),
    rounds: Math.max(0, state.budget.maxRounds - state.roundsStarted),
    costUsd: Math.max(0, state.budget.maxCostUsd - (state.used.costUsd ?? 0) - open.costUsd),
  };
}
