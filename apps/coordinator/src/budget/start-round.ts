import type { BudgetLedgerState } from './ledger-state';

/** Whether another round fits in the rounds budget. */
export function canStartRound(state: BudgetLedgerState): boolean {
  return state.roundsStarted < state.budget.maxRounds;
}

/** Records that round `n` (1-based) started. Idempotent: a replay of the same round changes nothing. */
export function startRound(state: BudgetLedgerState, n: number): BudgetLedgerState {
  return n > state.roundsStarted ? { ...state, roundsStarted: n } : state;
}
