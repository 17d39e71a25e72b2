/**
 * A Redis call that must answer in bounded time: a Redis that stops answering (stopped, partitioned) would hold
 * the request until the socket gives up, 16-25 s. Rejects after `ms`; the caller answers 503.
 */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: Redis did not answer within ${ms} ms`)), ms).unref())]);
}
