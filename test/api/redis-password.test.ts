import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redisAnswers } from '@orrery/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrreryClient } from '../../apps/cli/src/client/orrery-client';
import { freePort, type ServiceProcess, startCoordinatorProcess, startWorkerProcess, waitFor } from '../support/service-processes';

describe('a Redis URL with a password', () => {
  let redis: ChildProcess;
  let dir: string;
  let url: string;
  const procs: ServiceProcess[] = [];
  beforeAll(async () => {
    const port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'orrery-redis-auth-'));
    redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--requirepass', 's3cret pass', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
    url = `redis://:${encodeURIComponent('s3cret pass')}@127.0.0.1:${port}`;
    await waitFor(() => redisAnswers(url), 10_000, 'the password-protected redis-server');
  });
  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill()));
    redis?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('is used by the coordinator and the workers, and a run completes', async () => {
    const env = { REDIS_URL: url, QUEUE_PREFIX: 'auth', ENGINE: 'simulated' };
    const coordinator = await startCoordinatorProcess(env);
    procs.push(coordinator, await startWorkerProcess(env, 'worker-auth'));
    const client = new OrreryClient(coordinator.url);
    const { id } = await client.submit({ topic: 'password protected research overview' });
    expect(await client.waitForEnd(id)).toBe('done');
    expect((await client.report(id)).sources.length).toBeGreaterThan(0);
  });
});
