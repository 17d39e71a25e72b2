/** Below this fraction left in any budget dimension the run wraps up (seed 002: wrap-up at 15%). Strictly below: 0.15 itself does not wrap up. */
export const WRAP_UP_FRACTION = 0.15;
/** A budget dimension with a remaining fraction `<=` this is exhausted. */
export const BUDGET_EXHAUSTED_FRACTION = 0;

/** The one budget rule, on the tightest fraction left: spent, wrap up, or room to explore. */
export function budgetCall(tightest: number): 'exhausted' | 'wrap-up' | 'ok' {
  if (tightest <= BUDGET_EXHAUSTED_FRACTION) return 'exhausted';
  return tightest < WRAP_UP_FRACTION ? 'wrap-up' : 'ok';
}
