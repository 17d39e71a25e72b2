import type { BudgetLedgerState } from './ledger-state';

/** Records that round `n` (1-based) started. Idempotent: a replay of the same round changes nothing. */
export function startRound(state: BudgetLedgerState, n: number): BudgetLedgerState {
  return n > state.roundsStarted ? { ...state, roundsStarted: n } : state;
}
