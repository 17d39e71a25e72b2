import { Inject, Injectable, Logger } from '@nestjs/common';
import type { RedisClient } from '@orrery/runtime';
import { Cluster, type Redis } from 'ioredis';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { REDIS } from '../redis/redis.module';
import { RunKeys } from '../redis/run-keys';

/** A stream entry as XREAD gives it: its id and its fields. */
export type StreamEntry = [string, string[]];

/**
 * The reads behind the live event streams (EventFollower). On one Redis: a connection of its own that blocks in one
 * XREAD over every followed run, and that CLIENT UNBLOCK wakes. On a Cluster each run's stream sits in a slot of its
 * own and one XREAD cannot span slots: there each stream is read on its own, without blocking.
 */
@Injectable()
export class EventReader {
  private readonly logger = new Logger(EventReader.name);
  private connection?: Redis;
  private connectionId?: number;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
    private readonly keys: RunKeys,
  ) {}

  /** Whether the streams are read one by one (readEach) rather than blocking (readBlocking). */
  get clustered(): boolean {
    return this.redis instanceof Cluster;
  }

  private blocking(): Redis {
    if (!this.connection) {
      if (this.redis instanceof Cluster) throw new Error('a Cluster has no one connection to block on');
      this.connection = this.redis.duplicate({ connectionName: `${this.config.QUEUE_PREFIX}:coordinator:events`, maxRetriesPerRequest: 1 });
      this.connection.on('error', (err) => this.logger.debug(`event reader: ${err.message}`));
      this.connection.on('close', () => (this.connectionId = undefined));
    }
    return this.connection;
  }

  /** One XREAD BLOCK over the runs' streams, each after its id in `after`: the entries read, by run. */
  async readBlocking(runIds: string[], after: string[], blockMs: number): Promise<[string, StreamEntry[]][]> {
    const connection = this.blocking();
    this.connectionId ??= Number(await connection.client('ID'));
    const res = await connection.xread('COUNT', 500, 'BLOCK', blockMs, 'STREAMS', ...runIds.map((id) => this.keys.events(id)), ...after);
    return (res ?? []).map(([key, entries]) => [runIds[runIds.findIndex((id) => this.keys.events(id) === key)]!, entries]);
  }

  /** Wakes the blocking read, if one may be blocked. */
  async wake(): Promise<void> {
    if (this.redis instanceof Cluster || this.connectionId === undefined) return;
    await this.redis.client('UNBLOCK', this.connectionId).catch(() => undefined);
  }

  /** One run's entries after `after`, without blocking. */
  async readEach(runId: string, after: string): Promise<StreamEntry[]> {
    const res = await this.redis.xread('COUNT', 500, 'STREAMS', this.keys.events(runId), after);
    return res?.[0]?.[1] ?? [];
  }

  close(): void {
    this.connection?.disconnect();
  }
}
