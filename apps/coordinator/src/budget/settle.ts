import type { TokenUsage } from '@orrery/protocol';
import type { BudgetAccount } from './budget-account';
import { costOf, tokensOf } from './tokens-of';

export interface SettleRequest {
  taskId: string;
  /** The reservation the task was dispatched under; omit for a task dispatched without one. */
  reservationId?: string;
  usage: TokenUsage | number;
  /** Idempotence key; defaults to taskId. Use e.g. `${taskId}#${attempt}` when a retry reuses the task id. */
  key?: string;
}

export interface SettleResult {
  state: BudgetAccount;
  /** false when the key was already settled (at-least-once redelivery): nothing changed. */
  applied: boolean;
  /** Reserved tokens this settlement freed beyond the actual usage (the unused part). */
  releasedTokens: number;
}

/**
 * Settles one task's actual usage: the task counts as used, its actual tokens are added, and its share of
 * the reservation (tokensOpen / tasksOpen) is released. A failed task settles with its usage (maybe 0).
 * Idempotent per key.
 */
export function settle(state: BudgetAccount, req: SettleRequest): SettleResult {
  const key = req.key ?? req.taskId;
  if (Object.hasOwn(state.settled, key)) return { state, applied: false, releasedTokens: 0 };
  const actual = tokensOf(req.usage);
  const cost = costOf(req.usage);
  let reservations = state.reservations;
  let share = 0;
  const r = req.reservationId === undefined ? undefined : state.reservations[req.reservationId];
  if (r && r.tasksOpen > 0) {
    share = r.tokensOpen / r.tasksOpen;
    const last = r.tasksOpen - 1 === 0;
    const costOpen = r.costOpen ?? 0;
    reservations = {
      ...reservations,
      [r.id]: { ...r, tasksOpen: r.tasksOpen - 1, tokensOpen: last ? 0 : r.tokensOpen - share, costOpen: last ? 0 : costOpen - costOpen / r.tasksOpen },
    };
  }
  return {
    state: {
      ...state,
      reservations,
      used: { tokens: state.used.tokens + actual, tasks: state.used.tasks + 1, costUsd: (state.used.costUsd ?? 0) + cost },
      settled: { ...state.settled, [key]: actual },
    },
    applied: true,
    releasedTokens: Math.max(0, share - actual),
  };
}

/** Releases what is still open in a reservation (tasks that will not run). Idempotent. */
export function release(state: BudgetAccount, reservationId: string): BudgetAccount {
  const r = state.reservations[reservationId];
  if (!r || (r.tasksOpen === 0 && r.tokensOpen === 0)) return state;
  return { ...state, reservations: { ...state.reservations, [reservationId]: { ...r, tasksOpen: 0, tokensOpen: 0, costOpen: 0 } } };
}

/** Charges tokens and dollars spent outside subagent tasks (planning, an L2 judge call, synthesis). Idempotent per key. */
export function chargeTokens(state: BudgetAccount, key: string, usage: TokenUsage | number): { state: BudgetAccount; applied: boolean } {
  if (Object.hasOwn(state.charges, key)) return { state, applied: false };
  const n = tokensOf(usage);
  const used = { ...state.used, tokens: state.used.tokens + n, costUsd: (state.used.costUsd ?? 0) + costOf(usage) };
  return { state: { ...state, used, charges: { ...state.charges, [key]: n } }, applied: true };
}
