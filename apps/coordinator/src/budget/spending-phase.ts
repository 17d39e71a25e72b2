import { billOf, topPhase } from '@orrery/engine';
import type { TokenUsage } from '@orrery/protocol';

/**
 * The phase spending a budget dimension, as the early warning names it: for tokens and dollars the run's bill says
 * (the phase with the most of them); tasks, rounds and wall time go to research rounds, since the warning comes
 * between rounds, before the writer. Undefined when nothing was spent on the dimension yet.
 */
export function spendingPhase(dimension: string, usage: TokenUsage): string | undefined {
  if (dimension === 'tokens') return topPhase(billOf(usage), 'tokens');
  if (dimension === 'costUsd') return topPhase(billOf(usage), 'usd');
  return 'research';
}
