/**
 * The service behind Redis Sentinel (REDIS_SENTINELS, REDIS_SENTINEL_MASTER): a master, its replica and three
 * sentinels, all real. The sentinels promote the replica while a round is out, first on request (SENTINEL
 * FAILOVER), then unplanned (the master SIGKILLed); every process follows the new master and the runs finish,
 * matching an undisturbed run. With `CHAOS_REDIS=sentinel` every other drill runs behind Sentinel too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/service-processes';
import { OwnedSentinel } from '../../bench/support/redis-topology';
import { baselineRun, ChaosCluster, expectSameRun, fingerprint, type RunFingerprint } from './chaos-support';

const TOPICS = ['chaos drill: the sentinels promote a replica', 'chaos drill: a second run through the failover'];

describe('chaos: Sentinel promotes the replica mid-run', () => {
  let redis: OwnedSentinel;
  let cluster: ChaosCluster;
  let baselines: RunFingerprint[];
  let baselineMs = 0;
  /** The two runs undisturbed, once, and how long they took together. */
  const undisturbed = async (): Promise<RunFingerprint[]> => {
    if (baselines) return baselines;
    const t0 = Date.now();
    baselines = await Promise.all(TOPICS.map((t) => baselineRun(cluster, t)));
    baselineMs = Date.now() - t0;
    return baselines;
  };
  /** Submits the two runs and resolves once a task of theirs is being worked on: a round is out. */
  const inFlight = async (): Promise<string[]> => {
    const ids = await Promise.all(TOPICS.map(async (topic) => (await cluster.client.submit({ topic, engine: 'simulated' })).id));
    await cluster.waitForEvent(ids[0]!, (e) => e.type === 'round.started', 30_000, 'round 1 to start');
    await waitFor(async () => (await cluster.queues.subagents.getActiveCount()) > 0, 30_000, 'a task to be taken');
    return ids;
  };
  const finishAsUndisturbed = async (ids: string[]): Promise<void> => {
    for (const [i, id] of ids.entries()) {
      expect(await cluster.waitForEnd(id, 180_000)).toBe('done');
      expectSameRun(await fingerprint(cluster, id), baselines[i]!);
    }
    for (const p of [...cluster.coordinators, ...cluster.workers]) expect(p.child.exitCode, `${p.name} is still running`).toBeNull();
  };
  beforeAll(async () => {
    redis = await OwnedSentinel.start();
    cluster = new ChaosCluster('chaos-sentinel', { redisEnv: redis.env, workerEnv: { SIMULATED_LATENCY_MS: '1000' } });
    await cluster.startAll(1, 2);
  }, 180_000);
  afterAll(async () => {
    await cluster?.stop();
    await redis?.destroy();
  });

  it('the runs in flight finish and match undisturbed ones', { timeout: 240_000 }, async () => {
    await undisturbed();
    const t1 = Date.now();
    const ids = await inFlight();
    const before = await redis.masterPort();
    const failoverAt = Date.now();
    await redis.failover();
    const promotedMs = Date.now() - failoverAt;
    expect(await redis.masterPort()).not.toBe(before);
    await finishAsUndisturbed(ids);
    console.log(`sentinel failover: promoted in ${promotedMs} ms; the two runs took ${Date.now() - t1} ms, undisturbed ones ${baselineMs} ms`);
  });

  it('an unplanned failover (the master SIGKILLed): the runs in flight finish and match undisturbed ones', { timeout: 240_000 }, async () => {
    await undisturbed();
    const t1 = Date.now();
    const ids = await inFlight();
    const before = await redis.masterPort();
    const killedAt = Date.now();
    await redis.killMaster();
    const electedMs = Date.now() - killedAt;
    expect(await redis.masterPort()).not.toBe(before);
    await finishAsUndisturbed(ids);
    console.log(`sentinel, master SIGKILLed: the replica elected ${electedMs} ms after the kill; the two runs took ${Date.now() - t1} ms, undisturbed ones ${baselineMs} ms`);
  });
});
