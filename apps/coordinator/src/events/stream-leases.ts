import { Inject, Injectable } from '@nestjs/common';
import type { RedisClient } from '@orrery/runtime';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { type LuaScript, luaScript } from '../redis/lua-script';
import { REDIS } from '../redis/redis.module';

const ACQUIRE_LUA = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

/**
 * The live streams of each key across every coordinator replica: a sorted set of stream ids scored by when
 * their lease runs out. Each open stream renews its lease with its keep-alive, so a replica that dies leaves
 * nothing counted for longer than a lease.
 */
@Injectable()
export class StreamLeases {
  private readonly acquireScript: LuaScript;
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {
    this.acquireScript = luaScript(redis, 'orreryAcquireStreamLease', ACQUIRE_LUA);
  }

  private key(owner: string): string {
    return `${this.config.QUEUE_PREFIX}:quota:{${owner}}:streams`;
  }

  private get leaseMs(): number {
    return this.config.SSE_KEEPALIVE_MS * 3;
  }

  /** Takes a place for the stream unless the key has `limit` live ones. */
  async acquire(owner: string, streamId: string, limit: number): Promise<boolean> {
    const now = Date.now();
    return (await this.acquireScript([this.key(owner)], [now, limit, now + this.leaseMs, streamId, this.leaseMs])) === 1;
  }

  async renew(owner: string, streamId: string): Promise<void> {
    await this.redis.multi().zadd(this.key(owner), 'XX', Date.now() + this.leaseMs, streamId).pexpire(this.key(owner), this.leaseMs).exec();
  }

  async release(owner: string, streamId: string): Promise<void> {
    await this.redis.zrem(this.key(owner), streamId);
  }
}
