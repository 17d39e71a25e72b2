/**
 * A scripted provider outage for the fake Messages API: from a trigger on, for a while, every Messages request is
 * answered as the API answers when it is down. The errors docs (api/errors) list `529 overloaded_error` ("the API is
 * temporarily overloaded") and `500 api_error` ("an unexpected error has occurred internal to Anthropic's systems");
 * `connection` drops the socket without an answer, as an unreachable API does. The duration is a parameter so that a
 * test can shorten a minute's outage to seconds with the same behaviour.
 */
import type { ServerResponse } from 'node:http';

export type OutageMode = 'overloaded' | 'api_error' | 'connection';

export class FakeOutage {
  private from = 0;
  private until = 0;
  private mode: OutageMode = 'overloaded';
  private armed?: { afterRequests: number; ms: number; mode: OutageMode; role?: string | undefined };
  private seen = 0;
  /** Requests answered with the outage, by arrival time (ms since the epoch). */
  readonly answered: number[] = [];

  /** Down now (or from `at`, ms since the epoch), for `ms`. */
  start(ms: number, mode: OutageMode = 'overloaded', at = Date.now()): this {
    this.from = at;
    this.until = this.from + ms;
    this.mode = mode;
    return this;
  }

  /**
   * Down for `ms` from the `afterRequests`+1-th Messages request on: the middle of a run, where the test chooses it.
   * With `role`, from the first request of that role (its system prompt's `Orrery role:`) past that count: the hub's own
   * calls (planner, gap-finder, judge) or a worker's (researcher, extractor).
   */
  after(afterRequests: number, ms: number, mode: OutageMode = 'overloaded', role?: string): this {
    this.armed = { afterRequests, ms, mode, role };
    return this;
  }

  /** When the outage began and ends (ms since the epoch); zeros before it began. */
  get window(): { from: number; until: number } {
    return { from: this.from, until: this.until };
  }

  /**
   * The fake's hook, for each Messages request before it is answered: true when the outage answered it (the response
   * is sent or the socket dropped), false when the request goes on as usual.
   */
  intercept(res: ServerResponse, requestId: string, onStatus: (status: number) => void, role?: string): boolean {
    const now = Date.now();
    this.seen += 1;
    if (this.armed && this.seen > this.armed.afterRequests && (this.armed.role === undefined || this.armed.role === role)) {
      // From this request's own arrival: the request that sets the outage off is the first it answers.
      this.start(this.armed.ms, this.armed.mode, now);
      this.armed = undefined;
    }
    if (now < this.from || now >= this.until) return false;
    this.answered.push(now);
    if (this.mode === 'connection') {
      onStatus(0);
      res.socket?.destroy();
      return true;
    }
    const [status, type, message] = this.mode === 'overloaded' ? [529, 'overloaded_error', 'Overloaded'] : [500, 'api_error', 'Internal server error'];
    onStatus(status);
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': requestId });
    res.end(JSON.stringify({ type: 'error', error: { type, message }, request_id: requestId }));
    return true;
  }
}
