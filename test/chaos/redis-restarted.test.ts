import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/service-processes';
import { baselineRun, ChaosCluster, expectSameRun, fingerprint, OwnedRedis, sleep } from './chaos-support';

const TOPIC = 'chaos drill: Redis goes away and comes back';

describe('chaos: the Redis server is killed and restarted mid-run (AOF on)', () => {
  let redis: OwnedRedis;
  let cluster: ChaosCluster;
  beforeAll(async () => {
    redis = await OwnedRedis.start();
    cluster = new ChaosCluster('chaos-redis', { redisUrl: redis.url, workerEnv: { SIMULATED_LATENCY_MS: '1000' } });
    await cluster.startAll(1, 2);
  });
  afterAll(async () => {
    await cluster?.stop();
    await redis?.destroy();
  });

  it('every process reconnects and the run completes, matching an undisturbed one', { timeout: 150_000 }, async () => {
    const baseline = await baselineRun(cluster, TOPIC);

    const { id } = await cluster.client.submit({ topic: TOPIC, engine: 'simulated' });
    await cluster.waitForEvent(id, (e) => e.type === 'round.started', 30_000, 'round 1 to start');
    await waitFor(async () => (await cluster.queues.subagents.getActiveCount()) > 0, 30_000, 'a task to be taken');

    await redis.stop('SIGKILL');
    // While Redis is away the service says so, promptly.
    const t0 = Date.now();
    const ready = await fetch(`${cluster.coordinators[0]!.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(Date.now() - t0).toBeLessThan(5000);
    await sleep(1500);
    await redis.start();

    expect(await cluster.waitForEnd(id, 120_000)).toBe('done');
    expectSameRun(await fingerprint(cluster, id), baseline);
    for (const p of [...cluster.coordinators, ...cluster.workers]) expect(p.child.exitCode, `${p.name} is still running`).toBeNull();
    expect((await fetch(`${cluster.coordinators[0]!.url}/readyz`)).status).toBe(200);
  });
});
