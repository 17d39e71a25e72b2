import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/service-processes';
import { ChaosCluster, fingerprint, OwnedRedis } from './chaos-support';

describe('chaos: Redis is down when a run is submitted', () => {
  let redis: OwnedRedis;
  let cluster: ChaosCluster;
  beforeAll(async () => {
    redis = await OwnedRedis.start();
    cluster = new ChaosCluster('chaos-redis-down', { redisUrl: redis.url, workerEnv: { SIMULATED_LATENCY_MS: '200' } });
    await cluster.startAll(1, 1);
  });
  afterAll(async () => {
    await cluster?.stop();
    await redis?.destroy();
  });

  const runKeys = async () => (await cluster.redis.keys(`${cluster.prefix}:run:*`)).length;

  it('POST answers 503 with a clear error, creates nothing, and runs work again once Redis is back', { timeout: 120_000 }, async () => {
    const url = cluster.coordinators[0]!.url;
    await redis.stop('SIGKILL');

    const t0 = Date.now();
    const res = await fetch(`${url}/v1/research`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ topic: 'submitted while Redis is down', engine: 'simulated' }) });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { message: string }).message).toMatch(/Redis is unavailable; nothing was created/);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect((await fetch(`${url}/readyz`)).status).toBe(503);
    expect((await fetch(`${url}/healthz`)).status).toBe(503);

    await redis.start();
    await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, 30_000, 'the coordinator to be ready again');
    // Nothing half-created: no run record, no event stream, no queued step.
    expect(await runKeys()).toBe(0);
    expect(await cluster.queues.coordinator.count()).toBe(0);
    expect(await cluster.queues.coordinator.getFailedCount()).toBe(0);

    const { id } = await cluster.client.submit({ topic: 'submitted once Redis is back', engine: 'simulated' });
    expect(await cluster.waitForEnd(id)).toBe('done');
    const fp = await fingerprint(cluster, id);
    expect(fp.findingIds.length).toBeGreaterThan(0);
  });
});
