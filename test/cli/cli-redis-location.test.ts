/**
 * The CLI's entry points find Redis where the services do: with REDIS_CLUSTER_NODES set, `npm run ingest` and
 * `npm run replay` work on that Redis Cluster (a real one of three masters, each with a replica), not on
 * REDIS_URL's node nor on localhost. Real CLI processes; the shared test Redis is left out of their environment.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { connectRedis, IngestState, readRedisLocation, type RedisClient } from '@orrery/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OwnedRedisCluster } from '../../bench/support/redis-topology';
import { FIXTURE_CORPUS, ROOT, uniquePrefix } from '../support/test-env';

const run = promisify(execFile);
const cli = (name: string) => resolve(ROOT, 'apps/cli/dist', `${name}.js`);

describe('the CLI on a Redis Cluster', () => {
  const prefix = uniquePrefix('cli-cluster');
  const dir = mkdtempSync(join(tmpdir(), 'orrery-cli-cluster-'));
  let cluster: OwnedRedisCluster;
  let redis: RedisClient;
  /** What a user's shell passes: the cluster, a prefix and a store of the test's own, no REDIS_URL. */
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    cluster = await OwnedRedisCluster.start(3);
    env = { PATH: process.env.PATH, HOME: process.env.HOME, ...cluster.env, QUEUE_PREFIX: prefix, CORPUS_STORE: join(dir, 'passages.sqlite'), ORRERY_DATA_DIR: dir };
    redis = connectRedis(readRedisLocation(env), { maxRetriesPerRequest: 3 });
  }, 120_000);
  afterAll(async () => {
    redis?.disconnect();
    await cluster?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('ingest: the ingest queue, its progress and its worker are on the cluster', { timeout: 180_000 }, async () => {
    const { stdout } = await run(process.execPath, [cli('ingest'), '--corpus', `kestrel=${FIXTURE_CORPUS}`, '--workers-here'], { env, timeout: 150_000 });
    expect(stdout).toMatch(/^kestrel: \d+ passages in \d+ documents/);
    expect(await new IngestState(redis, prefix).get('kestrel')).toMatchObject({ status: 'ready', corpus: 'kestrel' });
  });

  it('replay: reads a run’s events from the cluster', { timeout: 60_000 }, async () => {
    const runId = '00000000-0000-4000-8000-00000000c1c1';
    const event = { type: 'run.created', runId, ts: new Date().toISOString(), topic: 'replayed from the cluster', engine: 'simulated' };
    await redis.xadd(`${prefix}:run:{${runId}}:events`, '*', 'event', JSON.stringify(event));
    const { stdout } = await run(process.execPath, [cli('replay'), runId], { env, timeout: 50_000 });
    expect(stdout).toContain('replayed from the cluster');
  });

  it('refuses Redis settings that contradict each other, saying which', async () => {
    const bad = { ...env, REDIS_SENTINELS: '127.0.0.1:26379', REDIS_SENTINEL_MASTER: 'mymaster' };
    await expect(run(process.execPath, [cli('replay'), '00000000-0000-4000-8000-00000000c1c1'], { env: bad, timeout: 30_000 })).rejects.toMatchObject({ stderr: expect.stringMatching(/REDIS_CLUSTER_NODES: set REDIS_CLUSTER_NODES or REDIS_SENTINELS, not both/) });
  });
});
