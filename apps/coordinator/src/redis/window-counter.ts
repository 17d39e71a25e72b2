import type { RedisClient } from '@orrery/runtime';
import { type LuaScript, luaScript } from './lua-script';

const COUNT_LUA = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}`;

/**
 * Counts events per key in a fixed window that starts with the key's first event, in Redis so that every
 * replica shares the count: one round trip per event.
 */
export class WindowCounter {
  private readonly count: LuaScript;
  constructor(
    private readonly redis: RedisClient,
    private readonly windowMs: number,
  ) {
    this.count = luaScript(redis, 'orreryWindowCount', COUNT_LUA);
  }

  /** Counts one event; returns the window's count with it and the seconds until the window ends. */
  async add(key: string): Promise<{ count: number; resetsInSeconds: number }> {
    const [count, ttl] = (await this.count([key], [this.windowMs])) as [number, number];
    return { count, resetsInSeconds: Math.max(1, Math.ceil(ttl / 1000)) };
  }

  /** The window's count so far (0 when none is open) and the seconds until it ends. */
  async peek(key: string): Promise<{ count: number; resetsInSeconds: number }> {
    const [count, ttl] = await Promise.all([this.redis.get(key), this.redis.pttl(key)]);
    return { count: Number(count ?? 0), resetsInSeconds: Math.max(1, Math.ceil(ttl / 1000)) };
  }
}
