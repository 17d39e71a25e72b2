import { Inject, Injectable } from '@nestjs/common';
import type { RedisClient } from '@orrery/runtime';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { type LuaScript, luaScript } from '../redis/lua-script';
import { REDIS } from '../redis/redis.module';
import { WindowCounter } from '../redis/window-counter';
import { QuotaKeys } from './quota-keys';

const MINUTE_MS = 60_000;
const DAY_S = 86_400;

/**
 * One atomic admission: tokens and dollars today, unfinished runs, runs started in the last minute; records the run
 * in the last two when all pass. Returns {reason, retryAfterSeconds}, reason 'ok' when admitted.
 */
const ADMIT_LUA = `
local now = tonumber(ARGV[1])
local tokensLimit = tonumber(ARGV[2])
if tokensLimit > 0 and tonumber(redis.call('GET', KEYS[3]) or '0') >= tokensLimit then return {'tokens', tonumber(ARGV[3])} end
local costLimit = tonumber(ARGV[8])
if costLimit > 0 and tonumber(redis.call('GET', KEYS[4]) or '0') >= costLimit then return {'cost', tonumber(ARGV[3])} end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local concurrent = tonumber(ARGV[4])
if concurrent > 0 and redis.call('ZCARD', KEYS[2]) >= concurrent then return {'concurrent', 30} end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - ${MINUTE_MS})
local perMinute = tonumber(ARGV[5])
if perMinute > 0 and redis.call('ZCARD', KEYS[1]) >= perMinute then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {'rate', math.ceil((tonumber(oldest[2]) + ${MINUTE_MS} - now) / 1000)}
end
redis.call('ZADD', KEYS[1], now, ARGV[6])
redis.call('PEXPIRE', KEYS[1], ${MINUTE_MS})
redis.call('ZADD', KEYS[2], ARGV[7], ARGV[6])
redis.call('PEXPIREAT', KEYS[2], ARGV[7])
return {'ok', 0}`;

/** The limits one admission checks, and the run it records when they pass. */
export interface Admission {
  now: number;
  runId: string;
  tokensPerDay: number;
  costMicroUsdPerDay: number;
  secondsToMidnight: number;
  concurrentRuns: number;
  runsPerMinute: number;
  /** When an unfinished run stops counting even if it never finishes. */
  activeUntilMs: number;
}

/** The repository of the quota key space (`QUEUE_PREFIX:quota:{owner}:…`): each key's counters, shared by every replica. */
@Injectable()
export class QuotaStore {
  private readonly keys: QuotaKeys;
  private readonly admitScript: LuaScript;
  private readonly requests: WindowCounter;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(COORDINATOR_CONFIG) config: CoordinatorConfig,
  ) {
    this.keys = new QuotaKeys(config.QUEUE_PREFIX);
    this.admitScript = luaScript(redis, 'orreryAdmitRun', ADMIT_LUA);
    this.requests = new WindowCounter(redis, MINUTE_MS);
  }

  /** Checks and records a run in one step; the first limit it meets and when to retry, or 'ok'. */
  async admit(owner: string, day: string, a: Admission): Promise<[reason: string, retryAfterSeconds: number]> {
    return (await this.admitScript(
      [this.keys.started(owner), this.keys.active(owner), this.keys.tokens(owner, day), this.keys.cost(owner, day)],
      [a.now, a.tokensPerDay, a.secondsToMidnight, a.concurrentRuns, a.runsPerMinute, a.runId, a.activeUntilMs, a.costMicroUsdPerDay],
    )) as [string, number];
  }

  async withdraw(owner: string, runId: string): Promise<void> {
    await this.redis.multi().zrem(this.keys.started(owner), runId).zrem(this.keys.active(owner), runId).exec();
  }

  async ended(owner: string, runId: string): Promise<void> {
    await this.redis.zrem(this.keys.active(owner), runId);
  }

  /** Tokens and millionths of a dollar the owner spent on a UTC day. */
  async spent(owner: string, day: string): Promise<{ tokens: number; microUsd: number }> {
    const [tokens, micro] = await this.redis.mget(this.keys.tokens(owner, day), this.keys.cost(owner, day));
    return { tokens: Number(tokens ?? 0), microUsd: Number(micro ?? 0) };
  }

  async charge(owner: string, day: string, tokens: number, microUsd: number): Promise<void> {
    const tx = this.redis.multi();
    if (tokens > 0) tx.incrby(this.keys.tokens(owner, day), tokens).expire(this.keys.tokens(owner, day), 2 * DAY_S);
    if (microUsd > 0) tx.incrby(this.keys.cost(owner, day), microUsd).expire(this.keys.cost(owner, day), 2 * DAY_S);
    await tx.exec();
  }

  /** Counts one request in the owner's minute; the minute's count and the seconds until it ends. */
  countRequest(owner: string): Promise<{ count: number; resetsInSeconds: number }> {
    return this.requests.add(this.keys.requests(owner));
  }
}
