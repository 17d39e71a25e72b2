import { formatZodError, type ProviderOutage, ProviderOutageSchema } from '@orrery/protocol';
import { z } from 'zod';

/**
 * The breaker's settings, from the environment of every process that talks to the Messages API.
 * - BREAKER_THRESHOLD: outage answers (5xx, 529, connection failed) across the fleet, with no success between them,
 *   that open it. 5 is one request's whole retry ladder (the first try and the engine's 4 retries): an outage that
 *   would have failed a task opens the breaker instead, while a blip that one retry gets past does not.
 * - BREAKER_WINDOW_MS: those answers must fall inside this window.
 * - BREAKER_COOLDOWN_MS: how long the fleet sends nothing before one probe goes.
 */
export const BreakerSettingsSchema = z.object({
  BREAKER_THRESHOLD: z.coerce.number().int().min(1).max(1000).default(5),
  BREAKER_WINDOW_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  BREAKER_COOLDOWN_MS: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
});
export interface BreakerSettings {
  threshold: number;
  windowMs: number;
  cooldownMs: number;
}

export function breakerSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): BreakerSettings {
  const parsed = BreakerSettingsSchema.safeParse(env);
  if (!parsed.success) throw new Error(`invalid breaker settings: ${formatZodError(parsed.error)}`);
  return { threshold: parsed.data.BREAKER_THRESHOLD, windowMs: parsed.data.BREAKER_WINDOW_MS, cooldownMs: parsed.data.BREAKER_COOLDOWN_MS };
}

/**
 * Redis's clock, the one every process of a fleet shares, read once per script: a request's send and a run's first
 * failure are compared across processes and hosts, whose own clocks may differ by more than the time between the two.
 * `nowUs` is a string of digits (exact as a Lua number, below 2^53); `nowMs` whole milliseconds.
 */
export const REDIS_NOW = `local clock = redis.call('TIME')
local function nowUs() return clock[1] .. string.format('%06d', tonumber(clock[2])) end
local function nowMs() return tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000) end`;

/**
 * KEYS: pause, recovering, probe, failures, outage, outages (a count of every outage, for /metrics).
 * ARGV: caller's probe token ('' when none), threshold, cool-down ms, window ms, reason, recovering ttl ms.
 * The failures key is a hash: n, the run's count, and since, when its first failure came (Redis's clock, µs).
 * Returns {ms the fleet stays shut (0: the breaker is closed, retry as usual), 1 when this call shut it anew}.
 * Open already: the probe's failure shuts it for another cool-down; anyone else's answer (a request sent before it
 * opened) changes nothing and waits. Closed: one more failure; the threshold-th opens it.
 */
export const OUTAGE_LUA = `${REDIS_NOW}
local cooldown = tonumber(ARGV[3])
local now = nowMs()
local mine = ARGV[1] ~= '' and redis.call('GET', KEYS[3]) == ARGV[1]
local function shut()
  if redis.call('PTTL', KEYS[1]) < cooldown then redis.call('SET', KEYS[1], '1', 'PX', cooldown) end
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[6])
  redis.call('HSET', KEYS[5], 'reason', ARGV[5], 'probeAt', now + cooldown)
  redis.call('PEXPIRE', KEYS[5], ARGV[6])
  if mine then redis.call('DEL', KEYS[3]) end
end
if redis.call('EXISTS', KEYS[5]) == 1 then
  if mine then
    redis.call('HINCRBY', KEYS[5], 'failedProbes', 1)
    shut()
    return {cooldown, 1}
  end
  local left = redis.call('PTTL', KEYS[1])
  if left < 1 then left = 1 end
  return {left, 0}
end
local n = redis.call('HINCRBY', KEYS[4], 'n', 1)
if n == 1 then
  redis.call('HSET', KEYS[4], 'since', nowUs())
  redis.call('PEXPIRE', KEYS[4], ARGV[4])
end
if n < tonumber(ARGV[2]) then return {0, 0} end
redis.call('DEL', KEYS[4])
redis.call('HSET', KEYS[5], 'id', string.format('%d', now), 'since', string.format('%d', now), 'failedProbes', 0)
redis.call('INCR', KEYS[6])
shut()
return {cooldown, 1}`;

/**
 * KEYS: probe, recovering, outage, failures; ARGV: the probe's token, when the request went out (Redis's clock, µs, as
 * the gate's ENTER read it). An answer ends a run of outage failures only if its request went out after the run's
 * first failure: one sent before the outage and answered during it says nothing of now (it would otherwise reset the
 * count while a request's retries run out). The probe's answer closes the breaker.
 */
export const CLOSE_LUA = `local since = tonumber(redis.call('HGET', KEYS[4], 'since') or '0')
if since == 0 or tonumber(ARGV[2]) >= since then redis.call('DEL', KEYS[4]) end
if ARGV[1] ~= '' and redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1], KEYS[2])
  return redis.call('DEL', KEYS[3])
end
return 0`;

/** Reads the outage hash (and the pause left) into what every surface shows; null when the breaker is closed. */
export function readOutage(hash: Record<string, string>, pauseLeftMs: number): ProviderOutage | null {
  if (!hash['id']) return null;
  const parsed = ProviderOutageSchema.safeParse({
    id: hash['id'],
    since: new Date(Number(hash['since'])).toISOString(),
    reason: (hash['reason'] ?? 'provider unavailable').slice(0, 500),
    state: pauseLeftMs > 0 ? 'open' : 'half-open',
    failedProbes: Number(hash['failedProbes'] ?? 0),
    ...(hash['probeAt'] ? { probeAt: Number(hash['probeAt']) } : {}),
  });
  return parsed.success ? parsed.data : null;
}
