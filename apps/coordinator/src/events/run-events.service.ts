import { Inject, Injectable } from '@nestjs/common';
import { type RunEvent, RunEventSchema, type StoredRunEvent } from '@orrery/protocol';
import type { Redis } from 'ioredis';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { REDIS } from '../redis/redis.module';
import { type LuaScript, luaScript } from '../redis/lua-script';
import { RunKeys } from '../redis/run-keys';
import { compareStreamIds } from './stream-ids';

/**
 * Appends only once per key: a step that BullMQ delivers twice, or two coordinator replicas republishing
 * the same progress, leave one event in the stream. Keys created here get the unfinished-run TTL as a
 * safety net (a finished run's keys are shortened to the retention period). A Lua function, so that other
 * scripts (the ledger's intake) write their events in the same atomic call.
 */
export const APPEND_ONCE_LUA = `
local function append_once(stream, seen, key, event, maxlen, ttl)
  if redis.call('HSETNX', seen, key, '1') == 0 then return false end
  local id = redis.call('XADD', stream, 'MAXLEN', '~', maxlen, '*', 'event', event)
  if redis.call('TTL', stream) == -1 then
    redis.call('EXPIRE', stream, ttl)
    redis.call('EXPIRE', seen, ttl)
  end
  return id
end`;

const APPEND_SCRIPT = `${APPEND_ONCE_LUA}
return append_once(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4])`;

/** An event validated and serialized, with the idempotency key it is written under. */
export interface PreparedEvent {
  key: string;
  json: string;
}

type EventBody<T extends RunEvent['type']> = Omit<Extract<RunEvent, { type: T }>, 'runId' | 'ts' | 'type'>;

/** The one writer of run events: a Redis Stream per run, replayable from the start. */
@Injectable()
export class RunEventsService {
  private readonly appendOnce: LuaScript;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
    private readonly keys: RunKeys,
  ) {
    this.appendOnce = luaScript(redis, 'orreryAppendEvent', APPEND_SCRIPT);
  }

  /** Validates and serializes an event for `append` or for a script that writes it with other state. */
  prepare<T extends RunEvent['type']>(runId: string, key: string, type: T, body: EventBody<T>): PreparedEvent {
    const event = RunEventSchema.parse({ ...body, type, runId, ts: new Date().toISOString() });
    return { key, json: JSON.stringify(event) };
  }

  /** Appends the event unless one with the same idempotency key exists; returns its stream id. */
  async append<T extends RunEvent['type']>(runId: string, key: string, type: T, body: EventBody<T>): Promise<string | null> {
    const event = this.prepare(runId, key, type, body);
    const id = await this.appendOnce([this.keys.events(runId), this.keys.eventKeys(runId)], [event.key, event.json, this.config.EVENTS_MAXLEN, this.config.UNFINISHED_RUN_TTL_SECONDS]);
    return typeof id === 'string' ? id : null;
  }

  /** Events after `afterId` ('0' for all). */
  async read(runId: string, afterId = '0', count = 1000): Promise<StoredRunEvent[]> {
    const start = afterId === '0' ? '-' : `(${afterId}`;
    const entries = await this.redis.xrange(this.keys.events(runId), start, '+', 'COUNT', count);
    return entries.map(([id, fields]) => toStoredEvent(id, fields));
  }

  /**
   * Whether the run's stream sent `id`: it is one of its entries, or older than its first one (trimmed since by
   * EVENTS_MAXLEN, which cannot be told from one that was sent). An id past the last entry, or between two, was
   * never sent.
   */
  async sent(runId: string, id: string): Promise<boolean> {
    const key = this.keys.events(runId);
    const [hit, first] = await Promise.all([this.redis.xrange(key, id, id, 'COUNT', 1), this.redis.xrange(key, '-', '+', 'COUNT', 1)]);
    if (hit.length) return true;
    return first[0] !== undefined && compareStreamIds(id, first[0][0]) < 0;
  }

  async readAll(runId: string): Promise<StoredRunEvent[]> {
    const out: StoredRunEvent[] = [];
    let after = '0';
    for (;;) {
      const page = await this.read(runId, after, 1000);
      out.push(...page);
      if (page.length < 1000) return out;
      after = page[page.length - 1]!.id;
    }
  }
}

/** A stream entry as a validated event with its id. */
export function toStoredEvent(id: string, fields: string[]): StoredRunEvent {
  const idx = fields.indexOf('event');
  const event = RunEventSchema.parse(JSON.parse(fields[idx + 1] ?? 'null'));
  return { ...event, id };
}
