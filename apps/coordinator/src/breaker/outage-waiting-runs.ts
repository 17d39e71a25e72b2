import { Inject, Injectable } from '@nestjs/common';
import type { RedisClient } from '@orrery/runtime';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { REDIS } from '../redis/redis.module';

const TTL_S = 7 * 24 * 3600;

/**
 * The runs told they wait on each provider outage, and the outages with such runs: what a replica needs to tell
 * them the run goes on, even when another replica saw the outage open.
 */
@Injectable()
export class OutageWaitingRuns {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  private runsKey(outageId: string): string {
    return `${this.config.QUEUE_PREFIX}:breaker:waiting:${outageId}`;
  }
  private get outagesKey(): string {
    return `${this.config.QUEUE_PREFIX}:breaker:outages`;
  }

  async add(outageId: string, runId: string): Promise<void> {
    const key = this.runsKey(outageId);
    await this.redis.multi().sadd(key, runId).expire(key, TTL_S).sadd(this.outagesKey, outageId).expire(this.outagesKey, TTL_S).exec();
  }

  runsOf(outageId: string): Promise<string[]> {
    return this.redis.smembers(this.runsKey(outageId));
  }

  /** The outages some run still waits on, as far as this key space knows. */
  outages(): Promise<string[]> {
    return this.redis.smembers(this.outagesKey);
  }

  /** Forgets the outage and its runs, once they were told it is over. */
  async clear(outageId: string): Promise<void> {
    await this.redis.multi().del(this.runsKey(outageId)).srem(this.outagesKey, outageId).exec();
  }
}
