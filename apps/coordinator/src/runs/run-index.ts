import { Inject, Injectable } from '@nestjs/common';
import type { RedisClient } from '@orrery/runtime';
import type { Principal } from '../auth/principal';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { REDIS } from '../redis/redis.module';

/**
 * Which runs exist, newest first: one sorted set per owner and one of all runs (for admins), scored by creation
 * time. A run whose record has expired is dropped from them when a listing meets it; anything older than the
 * longest a run can live is trimmed on every write.
 */
@Injectable()
export class RunIndex {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  private all(): string {
    return `${this.config.QUEUE_PREFIX}:runs`;
  }
  private of(owner: string): string {
    return `${this.config.QUEUE_PREFIX}:runs:{${owner}}`;
  }
  private keysFor(principal: Principal): string {
    return principal.admin ? this.all() : this.of(principal.id);
  }

  async add(owner: string, runId: string, createdAtMs: number): Promise<void> {
    const horizon = createdAtMs - this.config.UNFINISHED_RUN_TTL_SECONDS * 1000;
    // One pipeline per key: on a Cluster a pipeline's keys must share a slot, and these two do not.
    await Promise.all([this.all(), this.of(owner)].map((key) => this.redis.pipeline().zadd(key, createdAtMs, runId).zremrangebyscore(key, '-inf', horizon).exec()));
  }

  async remove(owner: string, runId: string): Promise<void> {
    await Promise.all([this.redis.zrem(this.all(), runId), this.redis.zrem(this.of(owner), runId)]);
  }

  /** Run ids the principal may list, newest first, created before `beforeMs`. */
  async page(principal: Principal, limit: number, beforeMs?: number): Promise<string[]> {
    const max = beforeMs === undefined ? '+inf' : `(${beforeMs}`;
    return this.redis.zrevrangebyscore(this.keysFor(principal), max, '-inf', 'LIMIT', 0, limit);
  }

  /** Forgets runs whose records are gone. */
  async forget(principal: Principal, runIds: string[]): Promise<void> {
    if (runIds.length) await this.redis.zrem(this.keysFor(principal), ...runIds);
  }
}
