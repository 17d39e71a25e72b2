import type { Budget, BudgetRequest } from '@orrery/protocol';

const KEYS = ['maxTokens', 'maxTasks', 'maxRounds', 'maxWallSeconds', 'maxCostUsd'] as const;

/**
 * The run's budget: a request may only lower the server defaults, and everything is clamped to the
 * server's hard caps (which also catch defaults configured above the caps). Results are integers >= 1, but for
 * dollars, which keep their cents (at least one).
 * Non-finite or non-positive requested values are ignored (the default applies).
 */
export function resolveBudget(serverDefaults: Budget, serverHardCaps: Budget, requested?: BudgetRequest): Budget {
  const out = {} as Budget;
  for (const k of KEYS) {
    const r = requested?.[k];
    const wanted = typeof r === 'number' && Number.isFinite(r) && r > 0 ? r : serverDefaults[k];
    const v = Math.min(wanted, serverDefaults[k], serverHardCaps[k]);
    out[k] = k === 'maxCostUsd' ? Math.max(0.01, Math.round(v * 100) / 100) : Math.max(1, Math.floor(v));
  }
  return out;
}
