import type { StoredRunEvent } from '@orrery/protocol';
import type { OrreryClient } from '../client/orrery-client';

/**
 * Follows the run's events until it waits for a person or ends: the last event read, so the rest of the stream is
 * taken up after it, and whether the run is waiting.
 */
export async function untilReview(client: OrreryClient, id: string, onEvent: (e: StoredRunEvent) => void, signal: AbortSignal): Promise<{ waiting: boolean; lastEventId?: string }> {
  let lastEventId: string | undefined;
  for await (const e of client.events(id, undefined, signal)) {
    onEvent(e);
    lastEventId = e.id;
    if (e.type === 'run.status' && e.status === 'needs_review') return { waiting: true, lastEventId };
    if (e.type === 'run.finished') break;
  }
  return { waiting: false, ...(lastEventId ? { lastEventId } : {}) };
}
