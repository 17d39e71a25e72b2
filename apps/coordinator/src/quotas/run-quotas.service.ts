import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Principal } from '../auth/principal';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { TaskDispatcher } from '../queues/task-dispatcher';
import { QuotaExceededError } from './quota-exceeded.error';
import { secondsToUtcMidnight, utcDay } from './quota-keys';
import { QuotaStore } from './quota-store';

const MICRO_USD = 1_000_000;

/**
 * Per-key quotas on runs, kept in Redis so that they hold across coordinator replicas: runs started per minute,
 * unfinished runs at once, tokens and dollars per UTC day; and the service's own bound on queued work. Admins (and the
 * keyless local user) are held to the service's bound only. Every surface that starts runs comes through here.
 */
@Injectable()
export class RunQuotas {
  private readonly logger = new Logger(RunQuotas.name);

  constructor(
    private readonly counters: QuotaStore,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
    private readonly dispatcher: TaskDispatcher,
  ) {}

  /** Admits a new run or throws QuotaExceededError (429, or 503 while the queues are too deep). */
  async admit(principal: Principal, runId: string): Promise<void> {
    await this.checkBackpressure();
    if (principal.admin) return;
    const c = this.config;
    const now = Date.now();
    const owner = principal.id;
    const [reason, retry] = await this.counters.admit(owner, utcDay(now), {
      now,
      runId,
      tokensPerDay: c.QUOTA_TOKENS_PER_DAY,
      costMicroUsdPerDay: Math.round(c.QUOTA_COST_USD_PER_DAY * MICRO_USD),
      secondsToMidnight: secondsToUtcMidnight(now),
      concurrentRuns: c.QUOTA_CONCURRENT_RUNS,
      runsPerMinute: c.QUOTA_RUNS_PER_MINUTE,
      activeUntilMs: now + c.UNFINISHED_RUN_TTL_SECONDS * 1000,
    });
    if (reason === 'tokens') throw new QuotaExceededError(`this key has spent its ${c.QUOTA_TOKENS_PER_DAY} tokens per day; the quota renews at 00:00 UTC`, retry);
    if (reason === 'cost') throw new QuotaExceededError(`this key has spent its $${c.QUOTA_COST_USD_PER_DAY.toFixed(2)} per day; the quota renews at 00:00 UTC`, retry);
    if (reason === 'concurrent') throw new QuotaExceededError(`this key has ${c.QUOTA_CONCURRENT_RUNS} unfinished runs, its limit of concurrent runs; wait for one to end or cancel one`, retry);
    if (reason === 'rate') throw new QuotaExceededError(`this key has started ${c.QUOTA_RUNS_PER_MINUTE} runs in the last minute, its limit of runs per minute`, retry);
  }

  /** A run that was admitted but could not be created counts for nothing. */
  async withdraw(principal: Principal, runId: string): Promise<void> {
    if (principal.admin) return;
    await this.counters.withdraw(principal.id, runId);
  }

  /** The run ended: it no longer counts against its owner's concurrent runs. Idempotent. */
  async ended(owner: string, runId: string): Promise<void> {
    await this.counters.ended(owner, runId);
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
    const spent = await this.counters.spent(principal.id, day);
    return {
      ...(c.QUOTA_TOKENS_PER_DAY > 0 ? { tokens: Math.max(0, c.QUOTA_TOKENS_PER_DAY - spent.tokens) } : {}),
      ...(c.QUOTA_COST_USD_PER_DAY > 0 ? { costUsd: Math.max(0, Math.round(c.QUOTA_COST_USD_PER_DAY * MICRO_USD) - spent.microUsd) / MICRO_USD } : {}),
    };
  }

  /** What a run just spent, counted against its owner's day. Best effort: a failed count is logged. */
  chargeSpend(owner: string, spent: { tokens: number; costUsd: number }): void {
    const tokens = Math.round(spent.tokens);
    const micro = Math.round(spent.costUsd * MICRO_USD);
    if (tokens <= 0 && micro <= 0) return;
    void this.counters.charge(owner, utcDay(), tokens, micro).catch((err: Error) => this.logger.warn(`spend meter for ${owner}: ${err.message}`));
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
