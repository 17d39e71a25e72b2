import { Inject, Injectable } from '@nestjs/common';
import { type Watch, WatchSchema } from '@orrery/protocol';
import type { RedisClient } from '@orrery/runtime';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { REDIS } from '../redis/redis.module';

/** The runs of a watch it remembers, newest last. */
const KEPT_RUNS = 50;

const CAS = "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2]) return 1 end return 0";

/** Watches in Redis: one JSON record each, and a set of ids per owner. */
@Injectable()
export class WatchStore {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  private key(id: string) {
    return `${this.config.QUEUE_PREFIX}:watch:${id}`;
  }
  private ownerKey(owner: string) {
    return `${this.config.QUEUE_PREFIX}:watches:${owner}`;
  }

  async create(watch: Watch): Promise<void> {
    await this.redis.multi().set(this.key(watch.id), JSON.stringify(watch)).sadd(this.ownerKey(watch.owner), watch.id).exec();
  }

  async get(id: string): Promise<Watch | undefined> {
    const raw = await this.redis.get(this.key(id));
    return raw ? WatchSchema.parse(JSON.parse(raw)) : undefined;
  }

  async ofOwner(owner: string): Promise<Watch[]> {
    const ids = await this.redis.smembers(this.ownerKey(owner));
    return (await Promise.all(ids.map((id) => this.get(id)))).filter((w): w is Watch => w !== undefined).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async count(owner: string): Promise<number> {
    return this.redis.scard(this.ownerKey(owner));
  }

  /** Read, change, compare-and-set: a change computed on a record that changed meanwhile is tried again. */
  async mutate(id: string, change: (w: Watch) => Watch | undefined): Promise<Watch | undefined> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const raw = await this.redis.get(this.key(id));
      if (!raw) return undefined;
      const next = change(WatchSchema.parse(JSON.parse(raw)));
      if (!next) return WatchSchema.parse(JSON.parse(raw));
      next.runs = next.runs.slice(-KEPT_RUNS);
      if ((await this.redis.eval(CAS, 1, this.key(id), raw, JSON.stringify(WatchSchema.parse(next)))) === 1) return next;
    }
    throw new Error(`watch ${id}: too many concurrent updates`);
  }

  async remove(watch: Watch): Promise<void> {
    await this.redis.multi().del(this.key(watch.id)).srem(this.ownerKey(watch.owner), watch.id).exec();
  }
}
