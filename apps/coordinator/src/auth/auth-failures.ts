import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { REDIS } from '../redis/redis.module';
import { WindowCounter } from '../redis/window-counter';

/**
 * Failed authentications per client address, counted in Redis so that every replica sees them. An address past
 * AUTH_FAILURES_PER_MINUTE is refused before its key is even looked at, until its minute is over.
 */
@Injectable()
export class AuthFailures {
  private readonly counter: WindowCounter;
  constructor(
    @Inject(REDIS) redis: Redis,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {
    this.counter = new WindowCounter(redis, 60_000);
  }

  private key(address: string): string {
    return `${this.config.QUEUE_PREFIX}:auth-failures:${address}`;
  }

  /** Seconds the address must wait, or 0 when it may try. */
  async blockedFor(address: string): Promise<number> {
    const limit = this.config.AUTH_FAILURES_PER_MINUTE;
    if (!limit) return 0;
    const { count, resetsInSeconds } = await this.counter.peek(this.key(address));
    return count >= limit ? resetsInSeconds : 0;
  }

  async record(address: string): Promise<void> {
    if (this.config.AUTH_FAILURES_PER_MINUTE) await this.counter.add(this.key(address));
  }
}
