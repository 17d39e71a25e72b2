import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { StoredRunEvent } from '@orrery/protocol';
import { EventReader, type StreamEntry } from './event-reader';
import { toStoredEvent } from './run-events.service';
import { compareStreamIds } from './stream-ids';

const BLOCK_MS = 5000;
const RETRY_MS = 1000;
/** On a Cluster, how often the streams are read when the last read found nothing. */
const CLUSTER_POLL_MS = 100;

interface Follower {
  runId: string;
  /** The last event id this follower has; it gets only later ones. */
  after: string;
  deliver(events: StoredRunEvent[]): void;
}

/**
 * Every live event stream of this process is served by one blocking XREAD on one connection of its own, over all
 * the followed runs at once: the number of Redis connections does not grow with the number of SSE clients. A new
 * follower interrupts the read (CLIENT UNBLOCK) so that its run joins at once. On a Redis Cluster each run's stream
 * sits in a slot of its own and one XREAD cannot span slots: there every stream is read on its own, without
 * blocking, every CLUSTER_POLL_MS while nothing comes.
 */
@Injectable()
export class EventFollower implements OnModuleDestroy {
  private readonly logger = new Logger(EventFollower.name);
  private readonly followers = new Map<string, Set<Follower>>();
  private loop?: Promise<void>;
  /** Bumped on every new follower; the read in flight covers `readGeneration`. */
  private generation = 0;
  private readGeneration = 0;
  private closing = false;

  constructor(private readonly reader: EventReader) {}

  /** Follows a run's events after `after` ('0-0' for all); the returned function stops following. */
  follow(runId: string, after: string, deliver: (events: StoredRunEvent[]) => void): () => void {
    const follower: Follower = { runId, after, deliver };
    let set = this.followers.get(runId);
    if (!set) this.followers.set(runId, (set = new Set()));
    set.add(follower);
    this.generation++;
    this.ensureLoop();
    void this.interrupt();
    return () => {
      set.delete(follower);
      if (!set.size && this.followers.get(runId) === set) this.followers.delete(runId);
    };
  }

  /** Runs followed now, for metrics and tests. */
  get size(): number {
    let n = 0;
    for (const s of this.followers.values()) n += s.size;
    return n;
  }

  /** Wakes the blocked read so that it picks up new followers; retried briefly in case it was not blocked yet. */
  private async interrupt(): Promise<void> {
    if (this.reader.clustered) return;
    for (let i = 0; i < 20 && !this.closing && this.readGeneration < this.generation; i++) {
      await this.reader.wake();
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  private ensureLoop(): void {
    if (this.loop || this.closing) return;
    this.loop = this.run().finally(() => {
      this.loop = undefined;
      // A follower that came while the loop was ending would otherwise wait for nobody.
      if (this.followers.size) this.ensureLoop();
    });
  }

  private async run(): Promise<void> {
    if (this.reader.clustered) return this.poll();
    while (!this.closing && this.followers.size) {
      try {
        const runIds = [...this.followers.keys()];
        const from = runIds.map((id) => this.earliest(id));
        this.readGeneration = this.generation;
        for (const [runId, entries] of await this.reader.readBlocking(runIds, from, BLOCK_MS)) this.dispatch(runId, entries);
      } catch (err) {
        if (this.closing) break;
        this.logger.warn(`event reader: ${(err as Error).message}; retrying`);
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
  }

  private async poll(): Promise<void> {
    while (!this.closing && this.followers.size) {
      const runIds = [...this.followers.keys()];
      const reads = await Promise.all(
        runIds.map((id) =>
          this.reader.readEach(id, this.earliest(id)).catch((err: Error) => {
            this.logger.warn(`event reader: ${err.message}; retrying`);
            return [];
          }),
        ),
      );
      let found = false;
      reads.forEach((entries, i) => {
        if (entries.length) (found = true), this.dispatch(runIds[i]!, entries);
      });
      if (!found) await new Promise((r) => setTimeout(r, CLUSTER_POLL_MS));
    }
  }

  private earliest(runId: string): string {
    let min: string | undefined;
    for (const f of this.followers.get(runId) ?? []) if (!min || compareStreamIds(f.after, min) < 0) min = f.after;
    return min ?? '0-0';
  }

  private dispatch(runId: string, entries: StreamEntry[]): void {
    const events: StoredRunEvent[] = [];
    for (const [id, fields] of entries) {
      try {
        events.push(toStoredEvent(id, fields));
      } catch (err) {
        this.logger.warn(`run ${runId}: event ${id} skipped: ${(err as Error).message}`);
      }
    }
    const last = entries[entries.length - 1]?.[0];
    for (const f of this.followers.get(runId) ?? []) {
      const fresh = events.filter((e) => compareStreamIds(e.id, f.after) > 0);
      // Past every entry read, the unreadable ones included, so that none is read again.
      if (last && compareStreamIds(last, f.after) > 0) f.after = last;
      if (fresh.length) f.deliver(fresh);
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.closing = true;
    this.reader.close();
    await this.loop?.catch(() => undefined);
  }
}
