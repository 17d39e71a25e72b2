import { Inject, Injectable } from '@nestjs/common';
import { type RunEvent, RunEventSchema, type StoredRunEvent } from '@orrery/protocol';
import type { Redis } from 'ioredis';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { REDIS } from '../redis/redis.module';
import { RunKeys } from '../redis/run-keys';

/**
 * Keys created here get the unfinished-run TTL as a safety net (a finished run's keys are shortened
 * to the retention period). Appends only once per key: a step that BullMQ delivers twice, or two coordinator replicas
 * republishing the same progress, leave one event in the stream.
 */
const APPEND_ONCE_SCRIPT = `
if redis.call('HSETNX', KEYS[2], ARGV[1], '1') == 0 then return false end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[3], '*', 'event', ARGV[2])
if redis.call('TTL', KEYS[1]) == -1 then
  redis.call('EXPIRE', KEYS[1], ARGV[4])
  redis.call('EXPIRE', KEYS[2], ARGV[4])
end
return id`;

type EventBody<T extends RunEvent['type']> = Omit<Extract<RunEvent, { type: T }>, 'runId' | 'ts' | 'type'>;

/** The one writer of run events: a Redis Stream per run, replayable from the start. */
@Injectable()
export class RunEventsService {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
    private readonly keys: RunKeys,
  ) {}

  /** Appends the event unless one with the same idempotency key exists; returns its stream id. */
  async append<T extends RunEvent['type']>(runId: string, key: string, type: T, body: EventBody<T>): Promise<string | null> {
    const event = RunEventSchema.parse({ ...body, type, runId, ts: new Date().toISOString() });
    const id = await this.redis.eval(
      APPEND_ONCE_SCRIPT,
      2,
      this.keys.events(runId),
      this.keys.eventKeys(runId),
      key,
      JSON.stringify(event),
      String(this.config.EVENTS_MAXLEN),
      String(this.config.UNFINISHED_RUN_TTL_SECONDS),
    );
    return typeof id === 'string' ? id : null;
  }

  /** Events after `afterId` ('0' for all). */
  async read(runId: string, afterId = '0', count = 1000): Promise<StoredRunEvent[]> {
    const start = afterId === '0' ? '-' : `(${afterId}`;
    const entries = await this.redis.xrange(this.keys.events(runId), start, '+', 'COUNT', count);
    return entries.map(([id, fields]) => toStored(id, fields));
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

  /** Blocks up to `blockMs` for events after `afterId`, on a connection the caller owns. */
  async follow(connection: Redis, runId: string, afterId: string, blockMs: number): Promise<StoredRunEvent[]> {
    const res = await connection.xread('COUNT', 500, 'BLOCK', blockMs, 'STREAMS', this.keys.events(runId), afterId);
    if (!res) return [];
    return res.flatMap(([, entries]) => entries.map(([id, fields]) => toStored(id, fields)));
  }

  /** A dedicated connection for blocking reads, so followers never stall the shared one. */
  blockingConnection(): Redis {
    const conn = this.redis.duplicate({ maxRetriesPerRequest: 1 });
    conn.on('error', () => undefined);
    return conn;
  }
}

function toStored(id: string, fields: string[]): StoredRunEvent {
  const idx = fields.indexOf('event');
  const event = RunEventSchema.parse(JSON.parse(fields[idx + 1] ?? 'null'));
  return { ...event, id };
}
