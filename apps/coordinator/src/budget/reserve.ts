import { available, type BudgetAccount, type BudgetReservation } from './budget-account';

export interface ReserveRequest {
  /** Idempotence key of the dispatch (e.g. the round's step id). */
  id: string;
  tasks: number;
  /** Estimated tokens for all `tasks` together. */
  tokens: number;
  /** Estimated dollars for all `tasks` together. */
  costUsd?: number;
}

export type ReserveMode = 'trim' | 'refuse';

export type ReserveResult =
  | { ok: true; state: BudgetAccount; reservation: BudgetReservation; trimmed: boolean; replayed: boolean }
  | { ok: false; state: BudgetAccount; reason: string };

/**
 * Reserves tasks and tokens before a dispatch.
 * - 'trim' (default): grant what is left — fewer tasks (dispatch the first `granted.tasks`), tokens and dollars pro
 *   rata, capped by what is left; refuse only when not even one task, no token or no dollar is left.
 * - 'refuse': all or nothing.
 * Refuses when the wall-clock budget is spent (if `nowMs` is given). A replay of the same id returns the
 * original reservation and the unchanged state.
 */
export function reserve(state: BudgetAccount, req: ReserveRequest, opts: { mode?: ReserveMode; nowMs?: number } = {}): ReserveResult {
  const existing = state.reservations[req.id];
  if (existing) return { ok: true, state, reservation: existing, trimmed: existing.granted.tasks < req.tasks, replayed: true };
  if (!(req.tasks >= 1) || !Number.isInteger(req.tasks)) return { ok: false, state, reason: `invalid task count ${req.tasks}` };
  const wantTokens = Number.isFinite(req.tokens) && req.tokens > 0 ? req.tokens : 0;
  const wantCost = req.costUsd !== undefined && Number.isFinite(req.costUsd) && req.costUsd > 0 ? req.costUsd : 0;
  if (opts.nowMs !== undefined && opts.nowMs - state.startedAtMs >= state.budget.maxWallSeconds * 1000) {
    return { ok: false, state, reason: 'wall-clock budget spent' };
  }
  const avail = available(state);
  const mode = opts.mode ?? 'trim';
  if (mode === 'refuse' && (req.tasks > avail.tasks || wantTokens > avail.tokens || wantCost > avail.costUsd)) {
    return { ok: false, state, reason: `would exceed the budget (asked ${req.tasks} tasks/${wantTokens} tokens, left ${avail.tasks}/${avail.tokens})` };
  }
  const tasks = Math.min(req.tasks, avail.tasks);
  if (tasks < 1) return { ok: false, state, reason: `no task left in the budget (${state.used.tasks} used of ${state.budget.maxTasks})` };
  const tokens = Math.min((wantTokens * tasks) / req.tasks, avail.tokens);
  if (avail.tokens <= 0) return { ok: false, state, reason: `no token left in the budget (${state.used.tokens} used of ${state.budget.maxTokens})` };
  if (avail.costUsd <= 0) return { ok: false, state, reason: `no dollar left in the budget ($${state.used.costUsd} used of $${state.budget.maxCostUsd})` };
  const costUsd = Math.min((wantCost * tasks) / req.tasks, avail.costUsd);
  const reservation: BudgetReservation = { id: req.id, granted: { tasks, tokens, costUsd }, tasksOpen: tasks, tokensOpen: tokens, costOpen: costUsd };
  return {
    ok: true,
    state: { ...state, reservations: { ...state.reservations, [req.id]: reservation } },
    reservation,
    trimmed: tasks < req.tasks || tokens < wantTokens || costUsd < wantCost,
    replayed: false,
  };
}
