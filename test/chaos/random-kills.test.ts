/**
 * A user's way of breaking things: processes SIGKILLed at random moments while several runs are in flight,
 * replacements started after a random pause, every report compared with an undisturbed run of the same
 * input. `npm test` runs one round on the default corpus engine and one on the slowed simulated engine,
 * with a fixed seed; the soak alternates them for as long as asked (a random seed, printed):
 * `CHAOS_SOAK=1 SOAK_ROUNDS=20 [SOAK_SEED=n] [SOAK_MAX_KILLS=3] [SOAK_REDIS=1] npx vitest run test/chaos/random-kills.test.ts`.
 * With SOAK_REDIS=1 the drill owns its redis-server (AOF, fsync always) and SIGKILLs and restarts it too.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { baselineRun, ChaosCluster, expectSameRun, fingerprint, OwnedRedis, type RunFingerprint, sleep } from './chaos-support';

const SOAK = Boolean(process.env.CHAOS_SOAK);
const ROUNDS = SOAK ? Number(process.env.SOAK_ROUNDS ?? 6) : 2;
const MAX_KILLS = Number(process.env.SOAK_MAX_KILLS ?? 3);
const KILL_REDIS = SOAK && Boolean(process.env.SOAK_REDIS);
let seed = Number(process.env.SOAK_SEED ?? (SOAK ? Date.now() % 100_000 : 11));
/** mulberry32: a seeded generator, so a failing soak can be replayed with its seed. */
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const ENGINES = [
  { engine: 'corpus', topics: ['How have presidents addressed the economy?', 'immigration', 'What have presidents said about war and peace?'] },
  { engine: 'simulated', topics: ['soak: the hub and its spokes under fire', 'soak: a second run in flight', 'soak: a third run in flight'] },
] as const;

describe('chaos: random SIGKILLs while runs are in flight', () => {
  let redis: OwnedRedis | undefined;
  let cluster: ChaosCluster;
  beforeAll(async () => {
    console.log(`soak seed ${seed}, ${ROUNDS} rounds${KILL_REDIS ? ', Redis killed too' : ''}`);
    redis = KILL_REDIS ? await OwnedRedis.start() : undefined;
    // Locks of 4 s, not the other drills' 2 s: five processes building corpus profiles on a small machine can
    // keep an event loop busy past 2 s, and a lock lost that way is a false stall, not the fault under test.
    const env = { SIMULATED_SUBTOPICS: '4', COORDINATOR_LOCK_MS: '4000', SUBAGENT_LOCK_MS: '4000' };
    cluster = new ChaosCluster('chaos-soak', { workerEnv: { SIMULATED_LATENCY_MS: '400' }, env, ...(redis ? { redisUrl: redis.url } : {}) });
    await cluster.startAll(2, 3);
  }, 180_000);
  afterAll(async () => {
    await cluster.stop();
    await redis?.destroy();
  });

  /** A replacement process; it may meet Redis still down, so it is tried again. */
  const replace = async (coordinator: boolean): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      try {
        await (coordinator ? cluster.startCoordinator() : cluster.startWorker());
        return;
      } catch (err) {
        if (attempt >= 5) throw err;
        await sleep(1000);
      }
    }
  };

  it('every run ends done and matches its undisturbed run', { timeout: 30 * 60_000 }, async () => {
    const baselines = new Map<string, RunFingerprint>();
    const t0 = Date.now();
    for (const { engine, topics } of ENGINES.slice(0, ROUNDS))
      await Promise.all(topics.map(async (topic) => baselines.set(`${engine}\n${topic}`, await baselineRun(cluster, topic, engine))));
    console.log(`baselines in ${Date.now() - t0} ms`);

    for (let round = 1; round <= ROUNDS; round++) {
      const { engine, topics } = ENGINES[(round - 1) % ENGINES.length]!;
      const runs = await Promise.all(topics.map(async (topic) => ({ topic, id: (await cluster.client.submit({ topic, engine })).id })));
      const kills = MAX_KILLS > 0 ? 1 + Math.floor(random() * MAX_KILLS) : 0;
      const log: string[] = [];
      const replacements: Promise<void>[] = [];
      for (let k = 0; k < kills; k++) {
        await sleep(random() * (engine === 'simulated' ? 2500 : 1500));
        const live = [...cluster.coordinators, ...cluster.workers].filter((p) => p.child.exitCode === null && p.child.signalCode === null);
        const liveCoordinators = live.filter((p) => cluster.coordinators.includes(p as never));
        // Keep one coordinator answering HTTP so the drill can read results; any other process may die.
        const victims = live.filter((p) => !(liveCoordinators.length === 1 && p === liveCoordinators[0]));
        const pick = Math.floor(random() * (victims.length + (redis ? 1 : 0)));
        const pause = random() * 1500;
        if (redis && pick === victims.length) {
          log.push(`${Date.now()} kill redis-server for ${Math.round(pause)} ms`);
          await redis.stop();
          await sleep(pause);
          await redis.start();
          continue;
        }
        const victim = victims[pick];
        if (!victim) continue;
        const isCoordinator = cluster.coordinators.includes(victim as never);
        log.push(`${Date.now()} kill ${victim.name}`);
        await cluster.kill(victim);
        replacements.push(sleep(pause).then(() => replace(isCoordinator)));
      }
      await Promise.all(replacements);
      for (const r of runs) {
        const status = await cluster.waitForEnd(r.id, 180_000);
        if (status !== 'done') throw new Error(`round ${round} (${engine}, seed ${seed}): run ${r.id} ended ${status}; ${log.join('; ')}`);
        expectSameRun(await fingerprint(cluster, r.id), baselines.get(`${engine}\n${r.topic}`)!);
      }
      console.log(`round ${round} (${engine}): ${runs.length} runs done and identical to their baselines after ${log.length} kills: ${log.map((l) => l.slice(l.indexOf(' ') + 1)).join(', ')} (${Date.now() - t0} ms)`);
    }
  });
});
