/** Redis keys of one owner's quotas; the `{owner}` hash tag keeps them in one cluster slot for the admission script. */
export class QuotaKeys {
  constructor(private readonly prefix: string) {}
  private base(owner: string): string {
    return `${this.prefix}:quota:{${owner}}`;
  }
  /** Runs started in the last minute (a sliding log). */
  started(owner: string): string {
    return `${this.base(owner)}:started`;
  }
  /** Unfinished runs, scored by when they stop counting even if they never finish. */
  active(owner: string): string {
    return `${this.base(owner)}:active`;
  }
  /** Requests made in the current minute. */
  requests(owner: string): string {
    return `${this.base(owner)}:requests`;
  }
  /** Tokens spent on one UTC day (`YYYY-MM-DD`). */
  tokens(owner: string, day: string): string {
    return `${this.base(owner)}:tokens:${day}`;
  }
  /** Millionths of a US dollar spent on one UTC day: whole numbers, so INCRBY adds them exactly. */
  cost(owner: string, day: string): string {
    return `${this.base(owner)}:cost-microusd:${day}`;
  }
}

export const utcDay = (ms = Date.now()): string => new Date(ms).toISOString().slice(0, 10);
export const secondsToUtcMidnight = (ms = Date.now()): number => Math.ceil((Date.parse(`${utcDay(ms)}T00:00:00Z`) + 86_400_000 - ms) / 1000);
