/**
 * Whether caching a one-shot prompt pays, from how often its correction retry re-sends it. A cache write costs 1.25×
 * the input price and a read 0.1× (prompt caching docs, "Pricing"): caching every first attempt adds 0.25× and saves
 * 0.9× on each retry, so it pays once more than 0.25 / 0.9 ≈ 28% of the calls are retried.
 */
export const CACHE_PAYS_ABOVE = 0.25 / 0.9;
/** Calls seen before the rate is trusted. */
export const MIN_SAMPLES = 4;

export class RetryRate {
  private calls = 0;
  private retried = 0;

  record(retried: boolean): void {
    this.calls += 1;
    if (retried) this.retried += 1;
  }

  get cachePays(): boolean {
    return this.calls >= MIN_SAMPLES && this.retried / this.calls > CACHE_PAYS_ABOVE;
  }
}
