import type { BudgetAccount } from './budget-account';

/** Records that round `n` (1-based) started. Idempotent: a replay of the same round changes nothing. */
export function startRound(state: BudgetAccount, n: number): BudgetAccount {
  return n > state.roundsStarted ? { ...state, roundsStarted: n } : state;
}
