import { clipText } from '@orrery/protocol';

export type TimedResult<T> =
  | { status: 'ok'; value: T; ms: number }
  | { status: 'timeout'; ms: number }
  | { status: 'error'; error: unknown; ms: number };

/**
 * Runs `fn` with a deadline and never rejects. On timeout the AbortSignal given to `fn` is aborted so the callee
 * can stop spending tokens; a late result is ignored. Both judges' model calls go through it.
 */
export async function withTimeout<T>(fn: (signal: AbortSignal) => Promise<T>, timeoutMs: number): Promise<TimedResult<T>> {
  const started = performance.now();
  const ac = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), Math.max(0, timeoutMs));
  });
  try {
    const winner = await Promise.race([Promise.resolve().then(() => fn(ac.signal)).then((value) => ({ value })), deadline]);
    const ms = performance.now() - started;
    if (winner === 'timeout') {
      ac.abort(new Error(`timed out after ${timeoutMs} ms`));
      return { status: 'timeout', ms };
    }
    return { status: 'ok', value: winner.value, ms };
  } catch (error) {
    return { status: 'error', error, ms: performance.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

/** What a timed call threw, as a few hundred characters for a judgement's reason. */
export function shortError(error: unknown): string {
  return clipText(error instanceof Error ? error.message : String(error), 300);
}
