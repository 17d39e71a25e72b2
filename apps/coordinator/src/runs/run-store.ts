import { Inject, Injectable } from '@nestjs/common';
import { type Report, ReportSchema, type Run, RunSchema } from '@orrery/protocol';
import type { RedisClient } from '@orrery/runtime';
import { createHash } from 'node:crypto';
import { tokensOf } from '../budget/tokens-of';
import { RunQuotas } from '../quotas/run-quotas.service';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { REDIS } from '../redis/redis.module';
import { type LuaScript, luaScript } from '../redis/lua-script';
import { RunKeys } from '../redis/run-keys';
import { APPEND_ONCE_LUA, type PreparedEvent } from '../events/run-events.service';

/**
 * Compare-and-set on the record's digest, so two coordinator replicas never overwrite each other's step (every
 * write bumps stateVersion, so the digest changes with every write). Comparing digests rather than decoding
 * the record in Lua means no text a run holds (cjson refuses a lone surrogate) can make a run unwritable.
 * The events given with the write (ARGV 5.., key and event in pairs) are appended only when it lands.
 */
const CAS_SCRIPT = `${APPEND_ONCE_LUA}
local cur = redis.call('GET', KEYS[1])
if not cur then return -1 end
if redis.sha1hex(cur) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
for i = 5, #ARGV, 2 do append_once(KEYS[2], KEYS[3], ARGV[i], ARGV[i + 1], ARGV[3], ARGV[4]) end
return 1`;

const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');

export class RunNotFoundError extends Error {
  constructor(runId: string) {
    super(`run ${runId} not found`);
  }
}

/** The repository of run records. Only the coordinator writes here. */
@Injectable()
export class RunStore {
  private readonly compareAndSet: LuaScript;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
    private readonly keys: RunKeys,
    private readonly quotas: RunQuotas,
  ) {
    this.compareAndSet = luaScript(redis, 'orreryRunCompareAndSetWithEvents', CAS_SCRIPT);
  }

  async create(run: Run): Promise<void> {
    // A safety net: a run that never finishes still leaves Redis; finishing shortens this to the retention period.
    const ok = await this.redis.set(this.keys.run(run.id), JSON.stringify(RunSchema.parse(run)), 'EX', this.config.UNFINISHED_RUN_TTL_SECONDS, 'NX');
    if (ok !== 'OK') throw new Error(`run ${run.id} exists already`);
  }

  async get(runId: string): Promise<Run | undefined> {
    return (await this.read(runId))?.run;
  }

  private async read(runId: string): Promise<{ run: Run; raw: string } | undefined> {
    const raw = await this.redis.get(this.keys.run(runId));
    return raw ? { run: RunSchema.parse(JSON.parse(raw)), raw } : undefined;
  }

  /**
   * Several runs, in order; undefined where a run is gone. One GET each, sent together: each run's keys sit in a
   * cluster slot of their own, where one MGET cannot span them.
   */
  async getMany(runIds: string[]): Promise<(Run | undefined)[]> {
    const raws = await Promise.all(runIds.map((id) => this.redis.get(this.keys.run(id))));
    return raws.map((raw) => (raw ? RunSchema.parse(JSON.parse(raw)) : undefined));
  }

  async require(runId: string): Promise<Run> {
    const run = await this.get(runId);
    if (!run) throw new RunNotFoundError(runId);
    return run;
  }

  /**
   * Applies `change` to the latest record and writes it back if nobody else wrote in between;
   * retries on conflict. `change` returns undefined to leave the record as it is. Tokens the change
   * adds to the run's usage are counted against its owner's day. `events` are written in the same atomic call,
   * and only if the change is: a decision logged this way is the decision of a move that was applied.
   */
  async mutate(runId: string, change: (run: Run) => Run | undefined, events: readonly PreparedEvent[] = []): Promise<Run> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const read = await this.read(runId);
      if (!read) throw new RunNotFoundError(runId);
      const current = read.run;
      const next = change(structuredClone(current));
      if (!next) return current;
      const written: Run = RunSchema.parse({ ...next, stateVersion: current.stateVersion + 1, updatedAt: new Date().toISOString() });
      const res = await this.compareAndSet(
        [this.keys.run(runId), this.keys.events(runId), this.keys.eventKeys(runId)],
        [sha1(read.raw), JSON.stringify(written), this.config.EVENTS_MAXLEN, this.config.UNFINISHED_RUN_TTL_SECONDS, ...events.flatMap((e) => [e.key, e.json])],
      );
      if (res === 1) {
        this.quotas.chargeSpend(written.owner, { tokens: tokensOf(written.usage) - tokensOf(current.usage), costUsd: written.usage.costUsd - current.usage.costUsd });
        return written;
      }
      if (res === -1) throw new RunNotFoundError(runId);
    }
    throw new Error(`run ${runId}: too many concurrent updates`);
  }

  /** Fails fast (for a 503) when Redis does not answer, before a run is half-created. */
  async ping(): Promise<void> {
    await this.redis.ping();
  }

  /** Removes every key of a run that could not be started. */
  async drop(runId: string): Promise<void> {
    await this.redis.del(...this.keys.all(runId));
  }

  async saveReport(runId: string, report: Report): Promise<void> {
    await this.redis.set(this.keys.report(runId), JSON.stringify(report), 'EX', this.config.UNFINISHED_RUN_TTL_SECONDS);
  }

  async report(runId: string): Promise<Report | undefined> {
    const raw = await this.redis.get(this.keys.report(runId));
    return raw ? ReportSchema.parse(JSON.parse(raw)) : undefined;
  }

  /** After a run ends its keys live on for the retention period, then Redis drops them. */
  async expire(runId: string, seconds: number): Promise<void> {
    const pipeline = this.redis.pipeline();
    for (const key of this.keys.all(runId)) pipeline.expire(key, seconds);
    await pipeline.exec();
  }
}
