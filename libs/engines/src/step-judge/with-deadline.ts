export type DeadlineResult<T> = { status: 'ok'; value: T } | { status: 'timeout' } | { status: 'error'; error: unknown };

/** Runs `fn` with a deadline and never rejects; on timeout the signal given to `fn` is aborted and a late result ignored. */
export async function withDeadline<T>(fn: (signal: AbortSignal) => Promise<T>, timeoutMs: number): Promise<DeadlineResult<T>> {
  const ac = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), Math.max(0, timeoutMs));
  });
  try {
    const winner = await Promise.race([Promise.resolve().then(() => fn(ac.signal)).then((value) => ({ value })), deadline]);
    if (winner === 'timeout') {
      ac.abort(new Error(`timed out after ${timeoutMs} ms`));
      return { status: 'timeout' };
    }
    return { status: 'ok', value: winner.value };
  } catch (error) {
    return { status: 'error', error };
  } finally {
    clearTimeout(timer);
  }
}
