import type { StoredRunEvent } from '@orrery/protocol';
import { ApiError, api } from './api.js';
import { SseParser } from './sse-frames.js';

export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'failed';

export interface StreamHandlers {
  event(e: StoredRunEvent): void;
  state(state: StreamState, detail?: string): void;
  /** Asked when a stream ends without `run.finished`: is the run over (so there is nothing to resume)? */
  isOver(): Promise<boolean>;
}

export interface RunStream {
  stop(): void;
}

const FIRST_RETRY_MS = 400;
const MAX_RETRY_MS = 5000;

/**
 * Follows a run's events over fetch streaming rather than EventSource, which cannot send the Authorization
 * header (and the key must not go in the URL). A dropped connection is resumed with `Last-Event-ID`, so the
 * server replays only what was missed; retries back off up to 5 s.
 */
export function followRun(runId: string, handlers: StreamHandlers): RunStream {
  const abort = new AbortController();
  let lastEventId: string | undefined;
  let finished = false;

  const pause = (ms: number) => new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    abort.signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
  });

  async function readOnce(): Promise<number> {
    const res = await api.events(runId, lastEventId, abort.signal);
    handlers.state('live');
    const parser = new SseParser();
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let received = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return received;
      for (const frame of parser.push(value)) {
        if (frame.event === 'error') throw new Error(frame.data);
        const e = JSON.parse(frame.data) as StoredRunEvent;
        if (frame.id) lastEventId = frame.id;
        received++;
        handlers.event(e);
        if (e.type === 'run.finished') finished = true;
      }
    }
  }

  (async () => {
    let delay = FIRST_RETRY_MS;
    handlers.state('connecting');
    while (!abort.signal.aborted) {
      try {
        const received = await readOnce();
        if (finished || (received === 0 && (await handlers.isOver()))) {
          handlers.state('ended');
          return;
        }
        if (received > 0) delay = FIRST_RETRY_MS;
      } catch (err) {
        if (abort.signal.aborted) return;
        // A refusal ends the follow (no such run, no key); 429 (too many streams) is worth another try later.
        if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 429) {
          handlers.state('failed', err.message);
          return;
        }
      }
      if (abort.signal.aborted) return;
      handlers.state('reconnecting');
      await pause(delay);
      delay = Math.min(delay * 2, MAX_RETRY_MS);
    }
  })();

  return { stop: () => abort.abort() };
}
