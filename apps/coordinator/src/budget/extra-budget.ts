import type { Budget, BudgetRequest } from '@orrery/protocol';

const KEYS = ['maxTokens', 'maxTasks', 'maxRounds', 'maxWallSeconds', 'maxCostUsd'] as const;

/** How far a review's extra budget may lift a run, for the key that answers it. */
export interface GrantLimits {
  /** The highest budget a review may give: the hard caps for an admin key, the server's defaults (within the caps) for any other. */
  ceiling: Budget;
  /** What the ceiling is, for the refusal: "the hard cap", "the server's default budget". */
  ceilingName: string;
  /** What the key's daily quotas have left, where they bound it (a run may not be lifted to spend more than that). */
  quotaLeft?: { tokens?: number; costUsd?: number };
}

export type ExtraBudgetGrant =
  | { ok: true; budget: Budget }
  /** `most`: the largest extra the key may give per dimension; `exceeded`: one sentence per dimension asked past it. */
  | { ok: false; most: Budget; exceeded: string[] };

const cents = (x: number) => Math.floor(x * 100 + 1e-6) / 100;
const shown = (k: (typeof KEYS)[number], v: number) => (k === 'maxCostUsd' ? `$${v.toFixed(2)}` : String(v));

/**
 * The run's budget once a review's extra budget is added, or why not. Each dimension may rise at most to the
 * ceiling, and tokens and dollars only so far that what the run may still spend fits in what the key's day has left.
 * A run already past a limit keeps its budget (it was admitted with it); it only cannot be lifted further.
 */
export function grantExtraBudget(budget: Budget, used: { tokens: number; costUsd: number }, extra: BudgetRequest, limits: GrantLimits): ExtraBudgetGrant {
  const most = {} as Budget;
  const next = { ...budget };
  const exceeded: string[] = [];
  for (const k of KEYS) {
    let limit = limits.ceiling[k];
    let why = `${limits.ceilingName} is ${shown(k, limit)}`;
    const left = k === 'maxTokens' ? limits.quotaLeft?.tokens : k === 'maxCostUsd' ? limits.quotaLeft?.costUsd : undefined;
    if (left !== undefined) {
      const spent = k === 'maxTokens' ? used.tokens : used.costUsd;
      if (spent + left < limit) {
        limit = spent + left;
        why = `this key's daily quota has ${shown(k, left)}${k === 'maxTokens' ? ' tokens' : ''} left and the run has spent ${shown(k, spent)}`;
      }
    }
    const room = Math.max(0, limit - budget[k]);
    most[k] = k === 'maxCostUsd' ? cents(room) : Math.floor(room);
    const asked = extra[k] ?? 0;
    if (asked > most[k] + 1e-9) exceeded.push(`${k} +${shown(k, asked)} is more than this key may add: at most +${shown(k, most[k])} (the run has ${shown(k, budget[k])}; ${why})`);
    next[k] = k === 'maxCostUsd' ? Math.round((budget[k] + asked) * 100) / 100 : budget[k] + asked;
  }
  return exceeded.length ? { ok: false, most, exceeded } : { ok: true, budget: next };
}
