import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { REDIS } from '../redis/redis.module';
import { WindowCounter } from '../redis/window-counter';
import { within } from '../redis/within';

/** How long a key that authenticated from an address while the address was failing stays vouched for there. */
const VOUCHED_SECONDS = 600;

/**
 * Failed authentications per client address, counted in Redis so that every replica sees them. An address past
 * AUTH_FAILURES_PER_MINUTE is refused until its minute is over, except for the keys that authenticated from it
 * while it was failing (vouched for).
 */
@Injectable()
export class AuthFailures {
  private readonly counter: WindowCounter;
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {
    this.counter = new WindowCounter(redis, 60_000);
  }

  private bounded<T>(p: Promise<T>): Promise<T> {
    return within(p, this.config.REDIS_TIMEOUT_MS, 'auth throttle');
  }

  private key(address: string): string {
    return `${this.config.QUEUE_PREFIX}:auth-failures:${address}`;
  }

  /** The address's failures this minute, and the seconds it must wait (0 when it may try). */
  async standing(address: string): Promise<{ failures: number; blockedFor: number }> {
    const limit = this.config.AUTH_FAILURES_PER_MINUTE;
    if (!limit) return { failures: 0, blockedFor: 0 };
    const { count, resetsInSeconds } = await this.bounded(this.counter.peek(this.key(address)));
    return { failures: count, blockedFor: count >= limit ? resetsInSeconds : 0 };
  }

  private voucher(address: string, owner: string): string {
    return `${this.config.QUEUE_PREFIX}:auth-vouched:${address}:${owner}`;
  }

  /** The key (by its owner id) authenticated from the address while the address was failing. */
  async vouch(address: string, owner: string): Promise<void> {
    await this.bounded(this.redis.set(this.voucher(address, owner), '1', 'EX', VOUCHED_SECONDS));
  }

  async vouched(address: string, owner: string): Promise<boolean> {
    return (await this.bounded(this.redis.exists(this.voucher(address, owner)))) === 1;
  }

  async record(address: string): Promise<void> {
    if (this.config.AUTH_FAILURES_PER_MINUTE) await this.bounded(this.counter.add(this.key(address)));
  }
}
