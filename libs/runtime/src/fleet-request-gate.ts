import type { ProviderOutage } from '@orrery/protocol';
import type { RedisClient } from './redis-connection';
import { setTimeout as delay } from 'node:timers/promises';
import { type BreakerSettings, CLOSE_LUA, OUTAGE_LUA, readOutage, REDIS_NOW } from './provider-breaker';

/**
 * The Messages API rate-limit gate of a whole deployment (one QUEUE_PREFIX), kept in Redis: it implements the Claude
 * engine's RequestGate. A 429 is a wall for the whole organisation, so when any process meets it every process holds
 * its requests until `retry-after` has passed; then exactly one probe goes out, and the rest follow once a request
 * gets through. Without it each task would retry on its own clock, and a fleet would keep hitting the wall (and a task
 * that gave up would start over, paying for its searches again).
 *
 * Keys: `<prefix>:{anthropic-gate}:pause` (set for the wait, PX), `:recovering` (a 429 was met, no success since),
 * `:probe` (who may send while recovering), one hash tag so that the scripts' keys share a cluster slot; and
 * `<prefix>:anthropic:ratelimit` (the latest `anthropic-ratelimit-*` headers, for /metrics).
 *
 * The same wall is the provider's breaker: when the API keeps answering 5xx, 529 or not at all across the fleet
 * (`:failures`, BreakerSettings), the breaker opens (`:outage`, its reason and since when): nobody sends for a
 * cool-down, then the single probe goes, and its answer either closes the breaker or shuts it for another cool-down.
 */
export class FleetRequestGate {
  private readonly keys: { pause: string; recovering: string; probe: string; headers: string; failures: string; outage: string; outages: string };
  readonly breaker: BreakerSettings;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly options: {
      /** Called with the wait on every 429: the worker stops taking new tasks for that long (BullMQ rate limit). */
      onPause?: (ms: number) => Promise<void> | void;
      /** A probe that never reports back frees the way after this long. Default 120 s. */
      probeTtlMs?: number;
      /** How often a waiting request looks again while a probe is out. Default 100 ms. */
      pollMs?: number;
      /** When the provider's breaker opens, and how long it stays shut. Default: 5 failures in 60 s, 10 s cool-down. */
      breaker?: Partial<BreakerSettings>;
    } = {},
  ) {
    const gate = `${prefix}:{anthropic-gate}`;
    this.keys = {
      pause: `${gate}:pause`,
      recovering: `${gate}:recovering`,
      probe: `${gate}:probe`,
      headers: `${prefix}:anthropic:ratelimit`,
      // A hash (n, since); named anew so that a string count an older version left cannot meet HINCRBY.
      failures: `${gate}:failure-run`,
      outage: `${gate}:outage`,
      outages: `${gate}:outages`,
    };
    this.breaker = { threshold: 5, windowMs: 60_000, cooldownMs: 10_000, ...options.breaker };
  }

  /** Resolves when this request may go out. */
  async enter(signal?: AbortSignal): Promise<{ rateLimited(ms: number): Promise<void>; unavailable(reason: string): Promise<number>; done(ok: boolean): Promise<void> }> {
    const token = `${process.pid}:${Math.random().toString(36).slice(2)}`;
    for (;;) {
      signal?.throwIfAborted();
      // One atomic look: a probe taken here cannot race a pause another process has just set.
      const [code, sentAt] = (await this.redis.eval(ENTER, 3, this.keys.pause, this.keys.recovering, this.keys.probe, token, String(this.options.probeTtlMs ?? 120_000))) as [number, string];
      const answer = Number(code);
      if (answer === FREE) return this.ticket(undefined, sentAt);
      if (answer === PROBE) return this.ticket(token, sentAt);
      // A little slack after a pause, so the probe lands after the wall rather than on it.
      await wait(answer > 0 ? answer + SLACK_MS : (this.options.pollMs ?? 100), signal);
    }
  }

  /** `sentAt`: when the request went out, by Redis's clock (µs, as ENTER read it). */
  private ticket(probe: string | undefined, sentAt: string) {
    const release = async (): Promise<void> => {
      if (probe) await this.redis.eval(RELEASE, 1, this.keys.probe, probe);
    };
    return {
      rateLimited: async (ms: number): Promise<void> => {
        const wall = Math.max(1, Math.ceil(ms));
        // The pause never shortens: a later 429 with a shorter retry-after does not cut an earlier, longer one.
        await this.redis.eval(EXTEND, 2, this.keys.pause, this.keys.recovering, String(wall), String(wall + 10 * 60_000));
        await release();
        await this.options.onPause?.(wall);
      },
      unavailable: async (reason: string): Promise<number> => {
        const { pause, recovering, probe: probeKey, failures, outage, outages } = this.keys;
        const { threshold, cooldownMs, windowMs } = this.breaker;
        const [shutMs, anew] = (await this.redis.eval(OUTAGE_LUA, 6, pause, recovering, probeKey, failures, outage, outages, probe ?? '', String(threshold), String(cooldownMs), String(windowMs), reason.slice(0, 500), String(cooldownMs + 10 * 60_000))) as [number, number];
        if (anew) await this.options.onPause?.(shutMs);
        return Number(shutMs);
      },
      done: async (ok: boolean): Promise<void> => {
        // Only the probe's answer speaks for after the wall: a request that went out before it may still come back fine.
        // An answer ends a run of outage failures if its request went out after the run began.
        if (ok) await this.redis.eval(CLOSE_LUA, 4, this.keys.probe, this.keys.recovering, this.keys.outage, this.keys.failures, probe ?? '', sentAt);
        else await release();
      },
    };
  }

  /** Records the latest rate-limit headers (best effort; never delays a request). */
  observe(headers: Record<string, string>): void {
    if (Object.keys(headers).length === 0) return;
    void this.redis
      .multi()
      .hset(this.keys.headers, { ...headers, 'observed-at': String(Date.now()) })
      .pexpire(this.keys.headers, 3_600_000)
      .exec()
      .catch(() => undefined);
  }

  /** The provider's breaker as every process sees it: null while closed. */
  async outage(): Promise<ProviderOutage | null> {
    const [[, hash], [, left]] = (await this.redis.multi().hgetall(this.keys.outage).pttl(this.keys.pause).exec()) as [[unknown, Record<string, string>], [unknown, number]];
    return readOutage(hash ?? {}, Number(left));
  }

  /** Outages the deployment met, ever (the breaker opened from closed). */
  async outagesSeen(): Promise<number> {
    return Number((await this.redis.get(this.keys.outages)) ?? 0);
  }

  /** The latest `anthropic-ratelimit-*` headers any process of the deployment saw. */
  async latestHeaders(): Promise<Record<string, string>> {
    return this.redis.hgetall(this.keys.headers);
  }
}

const SLACK_MS = 50;
const FREE = -1;
const PROBE = -2;
const WAIT = -3;

/**
 * KEYS: pause, recovering, probe; ARGV: token, probe ttl. Returns {the pause left (ms) while paused; FREE when no 429 is
 * being recovered from; PROBE when this caller is now the probe; WAIT while another probe is out, and Redis's time
 * (µs) for the two that let the request go}.
 */
const ENTER = `${REDIS_NOW}
local left = redis.call('PTTL', KEYS[1])
if left > 0 then return {left, ''} end
if redis.call('EXISTS', KEYS[2]) == 0 then return {${FREE}, nowUs()} end
if redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[2], 'NX') then return {${PROBE}, nowUs()} end
return {${WAIT}, ''}`;

/** Deletes the probe only if it is still ours. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;
/** Sets the pause to at least ARGV[1] ms from now, and marks the deployment as recovering. */
const EXTEND = `local left = redis.call('PTTL', KEYS[1])
if left < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], '1', 'PX', ARGV[1]) end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
return 1`;

/** Waits `ms`; rejects with an AbortError when the signal fires first. */
const wait = (ms: number, signal?: AbortSignal): Promise<void> => delay(Math.max(0, ms), undefined, signal ? { signal } : {});
