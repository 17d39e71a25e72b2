import { setTimeout as delay } from 'node:timers/promises';

/**
 * Where every Messages API request waits its turn. A 429 is a wall for the whole organisation, not for one task: once
 * one request meets it, no request of any process goes out until `retry-after` has passed, and then a single probe goes
 * first; the others follow when it gets through. The fleet-wide implementation keeps this state in Redis
 * (@orrery/runtime FleetRequestGate); `LocalRequestGate` keeps it in one process.
 */
export interface RequestGate {
  /** Resolves when this request may go out. Rejects with the signal's reason when it aborts first. */
  enter(signal?: AbortSignal): Promise<GateTicket>;
  /** The `anthropic-ratelimit-*` headers of the latest response, for /metrics. */
  observe?(headers: RateLimitHeaders): void;
}

export interface GateTicket {
  /** The API answered 429: nobody sends for `ms`; then one probe. */
  rateLimited(ms: number): Promise<void>;
  /**
   * The API answered 5xx or 529, or could not be reached: one more mark against the provider's breaker. Returns how
   * long nobody may send (ms): 0 while the breaker stays closed (retry as usual), else the request waits at the gate
   * for the probe instead of spending a retry. Ends the ticket.
   */
  unavailable?(reason: string): Promise<number>;
  /** Any other outcome. `ok` (a response came back) on the probe ends a recovery, so everyone may send again. */
  done(ok: boolean): Promise<void>;
}

/** `anthropic-ratelimit-*` response headers by name (lower case), as sent. */
export type RateLimitHeaders = Record<string, string>;

export const RATE_LIMIT_HEADER_PREFIX = 'anthropic-ratelimit-';

export function rateLimitHeaders(headers: Headers | undefined | null): RateLimitHeaders {
  const out: RateLimitHeaders = {};
  headers?.forEach((value, name) => {
    if (name.toLowerCase().startsWith(RATE_LIMIT_HEADER_PREFIX)) out[name.toLowerCase()] = value;
  });
  return out;
}

/**
 * How long a 429 asks to wait: `retry-after-ms`, else `retry-after` (seconds, or an HTTP date), as the API documents;
 * undefined when neither is usable.
 */
export function retryAfterMs(headers: Headers | undefined | null, now = Date.now()): number | undefined {
  const ms = Number(headers?.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms >= 0 && headers?.get('retry-after-ms') !== null) return ms;
  const raw = headers?.get('retry-after');
  if (raw === null || raw === undefined || raw.trim() === '') return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** Waits `ms`; rejects with an AbortError when the signal fires first. */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> => delay(Math.max(0, ms), undefined, signal ? { signal } : {});

/** After a pause ends, a little slack so that the probe lands after the wall, not on it. */
export const PAUSE_SLACK_MS = 50;
const POLL_MS = 100;

/** The gate for one process: the same rules as the fleet's, in memory (breaker: 5 outage answers in a row, 10 s cool-down). */
export class LocalRequestGate implements RequestGate {
  private pausedUntil = 0;
  private recovering = false;
  private probe: object | undefined;
  private failures = 0;
  /** When the current run of outage failures began. */
  private failingSince = 0;
  private outage = false;
  constructor(private readonly breaker = { threshold: 5, cooldownMs: 10_000 }) {}

  async enter(signal?: AbortSignal): Promise<GateTicket> {
    for (;;) {
      const wait = this.pausedUntil - Date.now();
      if (wait > 0) {
        await sleep(wait + PAUSE_SLACK_MS, signal);
        continue;
      }
      if (!this.recovering) return this.ticket(undefined);
      if (!this.probe) {
        const mine = {};
        this.probe = mine;
        return this.ticket(mine);
      }
      await sleep(POLL_MS, signal);
    }
  }

  private ticket(probe: object | undefined): GateTicket {
    const sentAt = performance.now();
    const release = () => {
      if (probe && this.probe === probe) this.probe = undefined;
    };
    return {
      rateLimited: async (ms) => {
        this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
        this.recovering = true;
        release();
      },
      unavailable: async () => {
        const shut = () => {
          this.pausedUntil = Math.max(this.pausedUntil, Date.now() + this.breaker.cooldownMs);
          this.recovering = true;
          return this.breaker.cooldownMs;
        };
        const mine = probe !== undefined && this.probe === probe;
        release();
        if (this.outage) return mine ? shut() : Math.max(1, this.pausedUntil - Date.now());
        if (this.failures === 0) this.failingSince = performance.now();
        if (++this.failures < this.breaker.threshold) return 0;
        this.failures = 0;
        this.outage = true;
        return shut();
      },
      done: async (ok) => {
        // Only the probe's answer speaks for after the wall: a request that went out before it may still come back fine.
        // ...and only a request sent after a run of outage failures began ends it.
        if (ok && sentAt >= this.failingSince) this.failures = 0;
        if (ok && probe && this.probe === probe) this.recovering = this.outage = false;
        release();
      },
    };
  }
}
