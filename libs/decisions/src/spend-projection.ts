import { budgetCall } from './thresholds';

/** A budget dimension the run's spend rate will overrun before the wrap-up threshold can act. */
export interface SpendOverrun {
  dimension: string;
  /** Fraction of the budget left now, and what one more round at the average rate so far spends. */
  left: number;
  perRound: number;
}

/**
 * The early warning on spend: wrap-up acts only between rounds, below WRAP_UP_FRACTION left, so a run whose
 * rounds each spend more than what is left would overrun its budget in the next round before wrap-up could stop
 * it. Projects one more round at the average rate of the rounds so far, on every continuous dimension (tokens,
 * tasks, wall time, dollars; not the rounds themselves), and names the first one that goes past the budget while
 * it is not yet wrapping up. Null when none does, or before the first round.
 */
export function projectSpend(left: Readonly<Record<string, number>>, roundsDone: number): SpendOverrun | null {
  if (!(roundsDone >= 1)) return null;
  for (const [dimension, l] of Object.entries(left)) {
    if (dimension === 'rounds' || budgetCall(l) !== 'ok') continue;
    const perRound = (1 - l) / roundsDone;
    if (l - perRound < 0) return { dimension, left: l, perRound };
  }
  return null;
}
