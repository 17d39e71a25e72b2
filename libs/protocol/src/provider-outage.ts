import { z } from 'zod';

/**
 * The model provider's breaker, as every process of a deployment reads it from Redis: open while the Messages API
 * keeps answering 5xx, 529 or failing to connect. A run with work waiting on it shows this as its waiting reason.
 */
export const ProviderOutageSchema = z.strictObject({
  /** One outage, from the breaker opening to the probe that closes it: `<since ms>`. */
  id: z.string(),
  since: z.iso.datetime(),
  /** What the provider last answered, e.g. "overloaded (529)". */
  reason: z.string().max(500),
  /** `open`: nobody sends until the cool-down ends; `half-open`: one probe of the fleet may. */
  state: z.enum(['open', 'half-open']),
  /** Probes that met the outage again. */
  failedProbes: z.number().int().nonnegative(),
  /** When the next probe may go (open), as ms since the epoch. */
  probeAt: z.number().int().nonnegative().optional(),
});
export type ProviderOutage = z.infer<typeof ProviderOutageSchema>;

/** What a run shows while it waits on the provider. */
export const RunWaitingSchema = z.strictObject({ reason: z.string(), since: z.iso.datetime(), outageId: z.string() });
export type RunWaiting = z.infer<typeof RunWaitingSchema>;
