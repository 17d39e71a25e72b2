/**
 * The service on a real Redis Cluster (3 masters, a replica each; REDIS_CLUSTER_NODES): a run ends as on one node,
 * and a master SIGKILLed mid-run is replaced by its replica while the run goes on, nothing lost or duplicated.
 * Every other drill runs on a cluster too with `CHAOS_REDIS=cluster npx vitest run test/chaos`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queuePrefix } from '@orrery/runtime';
import { waitFor } from '../support/service-processes';
import { OwnedRedisCluster } from '../../bench/support/redis-topology';
import { baselineRun, ChaosCluster, expectSameRun, fingerprint } from './chaos-support';

const TOPIC = 'chaos drill: a cluster master dies mid-run';

describe('chaos: on a Redis Cluster, a master is SIGKILLed mid-run', () => {
  let redis: OwnedRedisCluster;
  let cluster: ChaosCluster;
  beforeAll(async () => {
    redis = await OwnedRedisCluster.start(3);
    cluster = new ChaosCluster('chaos-rcluster', { redisEnv: redis.env, workerEnv: { SIMULATED_LATENCY_MS: '1000' } });
    await cluster.startAll(2, 2);
  }, 180_000);
  afterAll(async () => {
    await cluster?.stop();
    await redis?.destroy();
  });

  it('a run on the corpus engine ends done, followed live over SSE, its report citing what the subagents returned', { timeout: 120_000 }, async () => {
    const { id } = await cluster.client.submit({ topic: 'How have presidents addressed the economy?', engine: 'corpus' });
    // Each run's event stream sits in a slot of its own: the coordinator reads it stream by stream on a Cluster.
    const seen: string[] = [];
    expect(await cluster.client.waitForEnd(id, (e) => seen.push(e.type))).toBe('done');
    expect(seen[0]).toBe('run.created');
    expect(seen).toContain('task.completed');
    expect(seen.at(-1)).toBe('run.finished');
    expect(await cluster.waitForEnd(id)).toBe('done');
    const fp = await fingerprint(cluster, id);
    expect(fp.citedSourceIds.length).toBeGreaterThan(0);
    expect(fp.completedTasks.length).toBeGreaterThan(1);
  });

  it('the master holding the queues dies while a round is out: its replica takes over and the run matches an undisturbed one', { timeout: 240_000 }, async () => {
    const t0 = Date.now();
    const baseline = await baselineRun(cluster, TOPIC);
    const baselineMs = Date.now() - t0;

    const t1 = Date.now();
    const { id } = await cluster.client.submit({ topic: TOPIC, engine: 'simulated' });
    await cluster.waitForEvent(id, (e) => e.type === 'round.started', 30_000, 'round 1 to start');
    await waitFor(async () => (await cluster.queues.subagents.getActiveCount()) > 0, 30_000, 'a task to be taken');
    const victim = await redis.masterOf(`${queuePrefix(cluster.prefix)}:x`);
    const killedAt = Date.now();
    await victim.stop('SIGKILL');
    // The cluster is whole again once a replica has taken the dead master's slots.
    await redis.waitFailover(60_000);
    const healedMs = Date.now() - killedAt;
    expect(await redis.masterOf(`${queuePrefix(cluster.prefix)}:x`)).not.toBe(victim);

    expect(await cluster.waitForEnd(id, 180_000)).toBe('done');
    const runMs = Date.now() - t1;
    expectSameRun(await fingerprint(cluster, id), baseline);
    for (const p of [...cluster.coordinators, ...cluster.workers]) expect(p.child.exitCode, `${p.name} is still running`).toBeNull();
    console.log(`cluster failover: a replica served the dead master's slots ${healedMs} ms after the kill; the run took ${runMs} ms, an undisturbed one ${baselineMs} ms`);
  });
});
