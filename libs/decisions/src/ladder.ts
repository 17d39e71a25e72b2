import { ACT_ABOVE, ESCALATE_BELOW } from './thresholds';

export type ConfidenceRoute = 'act' | 'act-and-flag' | 'escalate';

/** > 0.8 act; 0.5..0.8 (both inclusive) act and flag for later review; < 0.5 escalate one level. */
export function routeByConfidence(confidence: number): ConfidenceRoute {
  if (!(confidence >= ESCALATE_BELOW)) return 'escalate'; // NaN escalates too
  return confidence > ACT_ABOVE ? 'act' : 'act-and-flag';
}
