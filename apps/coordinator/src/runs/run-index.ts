import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
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
    @Inject(REDIS) private readonly redis: Redis,
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
    const p = this.redis.pipeline();
    for (const key of [this.all(), this.of(owner)]) p.zadd(key, createdAtMs, runId).zremrangebyscore(key, '-inf', horizon);
    await p.exec();
  }

  async remove(owner: string, runId: string): Promise<void> {
    await this.redis.pipeline().zrem(this.all(), runId).zrem(this.of(owner), runId).exec();
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
