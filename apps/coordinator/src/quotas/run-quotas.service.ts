import { Inject, Injectable, Logger } from '@nestjs/common';
import type { RedisClient } from '@orrery/runtime';
import type { Principal } from '../auth/principal';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { TaskDispatcher } from '../queues/task-dispatcher';
import { type LuaScript, luaScript } from '../redis/lua-script';
import { REDIS } from '../redis/redis.module';
import { QuotaExceededError } from './quota-exceeded.error';
import { QuotaKeys, secondsToUtcMidnight, utcDay } from './quota-keys';

const MINUTE_MS = 60_000;
const DAY_S = 86_400;
const MICRO_USD = 1_000_000;

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

/**
 * Per-key quotas on runs, kept in Redis so that they hold across coordinator replicas: runs started per minute,
 * unfinished runs at once, tokens and dollars per UTC day; and the service's own bound on queued work. Admins (and the
 * keyless local user) are held to the service's bound only. Every surface that starts runs comes through here.
 */
@Injectable()
export class RunQuotas {
  private readonly logger = new Logger(RunQuotas.name);
  private readonly keys: QuotaKeys;
  private readonly admitScript: LuaScript;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
    private readonly dispatcher: TaskDispatcher,
  ) {
    this.keys = new QuotaKeys(config.QUEUE_PREFIX);
    this.admitScript = luaScript(redis, 'orreryAdmitRun', ADMIT_LUA);
  }

  /** Admits a new run or throws QuotaExceededError (429, or 503 while the queues are too deep). */
  async admit(principal: Principal, runId: string): Promise<void> {
    await this.checkBackpressure();
    if (principal.admin) return;
    const c = this.config;
    const now = Date.now();
    const owner = principal.id;
    const [reason, retry] = (await this.admitScript(
      [this.keys.started(owner), this.keys.active(owner), this.keys.tokens(owner, utcDay(now)), this.keys.cost(owner, utcDay(now))],
      [now, c.QUOTA_TOKENS_PER_DAY, secondsToUtcMidnight(now), c.QUOTA_CONCURRENT_RUNS, c.QUOTA_RUNS_PER_MINUTE, runId, now + c.UNFINISHED_RUN_TTL_SECONDS * 1000, Math.round(c.QUOTA_COST_USD_PER_DAY * MICRO_USD)],
    )) as [string, number];
    if (reason === 'tokens') throw new QuotaExceededError(`this key has spent its ${c.QUOTA_TOKENS_PER_DAY} tokens per day; the quota renews at 00:00 UTC`, retry);
    if (reason === 'cost') throw new QuotaExceededError(`this key has spent its $${c.QUOTA_COST_USD_PER_DAY.toFixed(2)} per day; the quota renews at 00:00 UTC`, retry);
    if (reason === 'concurrent') throw new QuotaExceededError(`this key has ${c.QUOTA_CONCURRENT_RUNS} unfinished runs, its limit of concurrent runs; wait for one to end or cancel one`, retry);
    if (reason === 'rate') throw new QuotaExceededError(`this key has started ${c.QUOTA_RUNS_PER_MINUTE} runs in the last minute, its limit of runs per minute`, retry);
  }

  /** A run that was admitted but could not be created counts for nothing. */
  async withdraw(principal: Principal, runId: string): Promise<void> {
    if (principal.admin) return;
    await this.redis.multi().zrem(this.keys.started(principal.id), runId).zrem(this.keys.active(principal.id), runId).exec();
  }

  /** The run ended: it no longer counts against its owner's concurrent runs. Idempotent. */
  async ended(owner: string, runId: string): Promise<void> {
    await this.redis.zrem(this.keys.active(owner), runId);
  }

  /** Whether the key's tokens and dollars of today leave room for another model call (the MCP judge's). */
  async hasSpendRoom(principal: Principal): Promise<boolean> {
    const left = await this.spendLeft(principal);
    return (left.tokens ?? 1) > 0 && (left.costUsd ?? 1) > 0;
  }

  /** What the key's tokens and dollars of today have left; a dimension without a quota (or an admin key) is absent. */
  async spendLeft(principal: Principal): Promise<{ tokens?: number; costUsd?: number }> {
    if (principal.admin) return {};
    const c = this.config;
    const day = utcDay();
    const [tokens, micro] = await this.redis.mget(this.keys.tokens(principal.id, day), this.keys.cost(principal.id, day));
    return {
      ...(c.QUOTA_TOKENS_PER_DAY > 0 ? { tokens: Math.max(0, c.QUOTA_TOKENS_PER_DAY - Number(tokens ?? 0)) } : {}),
      ...(c.QUOTA_COST_USD_PER_DAY > 0 ? { costUsd: Math.max(0, Math.round(c.QUOTA_COST_USD_PER_DAY * MICRO_USD) - Number(micro ?? 0)) / MICRO_USD } : {}),
    };
  }

  /** What a run just spent, counted against its owner's day. Best effort: a failed count is logged. */
  chargeSpend(owner: string, spent: { tokens: number; costUsd: number }): void {
    const tokens = Math.round(spent.tokens);
    const micro = Math.round(spent.costUsd * MICRO_USD);
    if (tokens <= 0 && micro <= 0) return;
    const day = utcDay();
    const tx = this.redis.multi();
    if (tokens > 0) tx.incrby(this.keys.tokens(owner, day), tokens).expire(this.keys.tokens(owner, day), 2 * DAY_S);
    if (micro > 0) tx.incrby(this.keys.cost(owner, day), micro).expire(this.keys.cost(owner, day), 2 * DAY_S);
    void tx.exec().catch((err: Error) => this.logger.warn(`spend meter for ${owner}: ${err.message}`));
  }

  /** The service's own bound: while more work waits than QUEUE_MAX_WAITING, nobody starts a run (503). */
  private async checkBackpressure(): Promise<void> {
    const limit = this.config.QUEUE_MAX_WAITING;
    if (!limit) return;
    const [tasks, steps] = await Promise.all([this.dispatcher.subagentQueue.getJobCounts('waiting', 'prioritized'), this.dispatcher.coordinatorQueue.getJobCounts('waiting', 'prioritized')]);
    const waiting = (tasks.waiting ?? 0) + (tasks.prioritized ?? 0) + (steps.waiting ?? 0) + (steps.prioritized ?? 0);
    if (waiting > limit) throw new QuotaExceededError(`the service is busy: ${waiting} jobs are waiting, more than its bound of ${limit}; retry shortly`, 30, 503);
  }
}
