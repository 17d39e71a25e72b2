import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { type LuaScript, luaScript } from '../redis/lua-script';
import { REDIS } from '../redis/redis.module';

const WINDOW_MS = 60_000;
const COUNT_LUA = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

/**
 * Failed authentications per client address, counted in Redis so that every replica sees them. An address past
 * AUTH_FAILURES_PER_MINUTE is refused before its key is even looked at, until its minute is over.
 */
@Injectable()
export class AuthFailures {
  private readonly count: LuaScript;
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {
    this.count = luaScript(redis, 'orreryCountAuthFailure', COUNT_LUA);
  }

  private key(address: string): string {
    return `${this.config.QUEUE_PREFIX}:auth-failures:${address}`;
  }

  /** Seconds the address must wait, or 0 when it may try. */
  async blockedFor(address: string): Promise<number> {
    const limit = this.config.AUTH_FAILURES_PER_MINUTE;
    if (!limit) return 0;
    const [count, ttl] = await Promise.all([this.redis.get(this.key(address)), this.redis.pttl(this.key(address))]);
    return Number(count ?? 0) >= limit ? Math.max(1, Math.ceil(ttl / 1000)) : 0;
  }

  async record(address: string): Promise<void> {
    if (this.config.AUTH_FAILURES_PER_MINUTE) await this.count([this.key(address)], [WINDOW_MS]);
  }
}
