/**
 * While Redis does not answer (stopped, not gone: its sockets stay open), the guards that need it (the failed-auth
 * throttle, the request meter) and the reads behind them answer 503 within a bounded time: nothing goes through
 * unmetered, and no request hangs until the socket gives up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OwnedRedis } from '../chaos/chaos-support';
import { type ServiceProcess, startCoordinatorProcess } from '../support/service-processes';
import { newApiKey, uniquePrefix } from '../support/test-env';

const KEY = newApiKey();
const WRONG = newApiKey();
const NO_RUN = '00000000-0000-4000-8000-000000000000';

describe('a Redis that does not answer', () => {
  let redis: OwnedRedis;
  let coordinator: ServiceProcess & { url: string };
  beforeAll(async () => {
    redis = await OwnedRedis.start();
    coordinator = await startCoordinatorProcess({ REDIS_URL: redis.url, QUEUE_PREFIX: uniquePrefix('redis-unanswering'), API_KEYS: KEY, ENGINE: 'simulated', REDIS_TIMEOUT_MS: '1000', READY_TIMEOUT_MS: '1000' });
  }, 90_000);
  afterAll(async () => {
    await coordinator?.kill();
    await redis?.destroy();
  });

  /** The status and how long it took, or 0 when no answer came within 15 s. */
  const timed = async (path: string, key?: string): Promise<{ status: number; ms: number }> => {
    const t0 = Date.now();
    const status = await fetch(`${coordinator.url}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {}, signal: AbortSignal.timeout(15_000) }).then(
      (r) => r.status,
      () => 0,
    );
    return { status, ms: Date.now() - t0 };
  };

  it('answers 503 within a few seconds to right keys, wrong keys and open routes alike, and recovers', { timeout: 120_000 }, async () => {
    expect((await timed('/v1/research', KEY)).status).toBe(200);
    redis.freeze();
    try {
      for (const [path, key] of [
        ['/v1/research', KEY],
        [`/v1/research/${NO_RUN}`, KEY],
        [`/v1/research/${NO_RUN}`, WRONG],
        ['/readyz', WRONG],
        ['/readyz', undefined],
        ['/healthz', undefined],
      ] as const) {
        const { status, ms } = await timed(path, key);
        expect(status, `${path} ${key === KEY ? 'right key' : key ? 'wrong key' : 'no key'}`).toBe(503);
        expect(ms, path).toBeLessThan(6000);
      }
    } finally {
      redis.thaw();
    }
    expect((await timed('/v1/research', KEY)).status).toBe(200);
  });
});
