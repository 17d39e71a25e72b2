import { BadRequestException, Inject, Injectable, Logger } from '@nestjs/common';
import { type StoredRunEvent, TERMINAL_RUN_STATUSES } from '@orrery/protocol';
import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/principal';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { EventFollower } from '../events/event-follower.service';
import { RunEventsService } from '../events/run-events.service';
import { parseStreamId } from '../events/stream-ids';
import { StreamLeases } from '../events/stream-leases';
import { QuotaExceededError } from '../quotas/quota-exceeded.error';
import { RunsService } from './runs.service';

/** What a run's stream yields: its events in order, and a keep-alive tick while nothing happens. */
export type StreamItem = { kind: 'event'; event: StoredRunEvent } | { kind: 'keep-alive' };

export interface RunStream extends AsyncIterable<StreamItem> {
  /** Stops following and gives the stream's places back; safe to call twice. */
  close(): void;
}

/** A stream's places, held before the stream follows a run (see RunStreamsService.reserve). */
export interface StreamPlace {
  /** Follows the run from `after` in these places; closing the stream gives them back. Call it once. */
  follow(runId: string, after?: string): RunStream;
  /** Gives the places back unused; a no-op once the stream they went to has closed. */
  release(): void;
}

/**
 * A run's event stream for any surface (SSE, MCP): the caller must be allowed to see the run, and holds one of
 * its key's SSE_MAX_STREAMS_PER_KEY places (across replicas) and one of this process's SSE_MAX_STREAMS. It
 * replays from `after`, then follows live through the process's one shared reader, and ends after
 * `run.finished` (or when the run has ended and nothing is left to read).
 */
@Injectable()
export class RunStreamsService {
  private readonly logger = new Logger(RunStreamsService.name);
  private live = 0;

  constructor(
    private readonly runs: RunsService,
    private readonly events: RunEventsService,
    private readonly follower: EventFollower,
    private readonly leases: StreamLeases,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  private async resumeAfter(runId: string, lastEventId: string | undefined): Promise<string> {
    if (lastEventId === undefined) return '0-0';
    const id = parseStreamId(lastEventId);
    if (id && (await this.events.sent(runId, id))) return id;
    throw new BadRequestException('Last-Event-ID must be an event id this stream sent, like 1700000000000-0');
  }

  /**
   * Checks access, then that `lastEventId` (SSE's Last-Event-ID) is an id this stream sent, and takes the
   * stream's places; 404, 400, or 429 with Retry-After, before anything is sent. Without it, replays from the start.
   */
  async open(principal: Principal, runId: string, lastEventId?: string): Promise<RunStream> {
    await this.runs.get(principal, runId);
    const after = await this.resumeAfter(runId, lastEventId);
    return (await this.reserve(principal)).follow(runId, after);
  }

  /**
   * Takes a stream's places before the run it will follow exists, so a caller that must follow the run it creates
   * (MCP research with wait) is refused, 429 with Retry-After, before it creates anything.
   */
  async reserve(principal: Principal): Promise<StreamPlace> {
    if (this.live >= this.config.SSE_MAX_STREAMS) throw new QuotaExceededError(`this process serves ${this.config.SSE_MAX_STREAMS} event streams at most; retry shortly`, 5);
    const streamId = randomUUID();
    if (!principal.admin && !(await this.leases.acquire(principal.id, streamId, this.config.SSE_MAX_STREAMS_PER_KEY))) {
      throw new QuotaExceededError(`this key follows ${this.config.SSE_MAX_STREAMS_PER_KEY} event streams already; close one first`, Math.ceil(this.config.SSE_KEEPALIVE_MS / 1000));
    }
    this.live++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.live--;
      if (!principal.admin) void this.leases.release(principal.id, streamId).catch((err: Error) => this.logger.debug(`stream lease: ${err.message}`));
    };
    return { follow: (runId, after = '0-0') => this.follow(principal, runId, after, streamId, release), release };
  }

  private follow(principal: Principal, runId: string, after: string, streamId: string, release: () => void): RunStream {
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      release();
      wake();
    };
    const queue: StreamItem[] = [];
    let notify: (() => void) | undefined;
    const wake = () => {
      notify?.();
      notify = undefined;
    };
    const push = (item: StreamItem) => {
      queue.push(item);
      wake();
    };
    let failure: Error | undefined;
    const self = this;

    async function* items(): AsyncGenerator<StreamItem> {
      let last = after;
      let stop: (() => void) | undefined;
      const timer = setInterval(() => void tick(), self.config.SSE_KEEPALIVE_MS);
      let ended = false;
      const tick = async () => {
        try {
          if (!principal.admin) await self.leases.renew(principal.id, streamId);
          const run = await self.runs.get(principal, runId);
          if (TERMINAL_RUN_STATUSES.includes(run.status) && !(await self.events.read(runId, last, 1)).length) ended = true;
          push({ kind: 'keep-alive' });
        } catch (err) {
          failure = err as Error;
          wake();
        }
      };
      try {
        for (let page = await self.events.read(runId, last === '0-0' ? '0' : last, 1000); page.length; page = await self.events.read(runId, last, 1000)) {
          for (const event of page) {
            yield { kind: 'event', event };
            last = event.id;
            if (event.type === 'run.finished') return;
          }
          if (closed) return;
        }
        stop = self.follower.follow(runId, last, (events) => {
          for (const event of events) push({ kind: 'event', event });
        });
        while (!closed) {
          while (queue.length) {
            const item = queue.shift()!;
            yield item;
            if (item.kind === 'event') {
              last = item.event.id;
              if (item.event.type === 'run.finished') return;
            }
          }
          if (failure) throw failure;
          if (ended) return;
          await new Promise<void>((r) => (notify = r));
        }
      } finally {
        clearInterval(timer);
        stop?.();
        close();
      }
    }

    const iterator = items();
    return { [Symbol.asyncIterator]: () => iterator, close };
  }
}

