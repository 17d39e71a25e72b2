import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { dropPrefix, freePort, redisAnswers, serviceProcessEnv } from '@orrery/runtime';

import { OrreryClient } from '@orrery/cli/dist/client/orrery-client';

/** Benchmarks drive the real service: a coordinator process and worker processes, on a key prefix of their own. */
export interface BenchStack {
  prefix: string;
  url: string;
  client: OrreryClient;
  /** The first coordinator: the one the client talks to. */
  coordinator: ChildProcess;
  coordinators: ChildProcess[];
  workers: ChildProcess[];
  /** The last 20 kB each worker wrote (stdout and stderr), for a failure's message. */
  workerOutput(): string[];
  stop(): Promise<void>;
}

const ROOT = resolve(__dirname, '..', '..', '..');

interface AppProcess {
  child: ChildProcess;
  output: () => string;
}

function spawnApp(app: 'coordinator' | 'subagents', env: Record<string, string>): AppProcess {
  const child = spawn(process.execPath, [resolve(ROOT, 'apps', app, 'dist', 'main.js')], {
    // Started as `npm start` and the image start them (a capped heap, two malloc arenas) unless `env` says otherwise.
    env: serviceProcessEnv({ PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d: Buffer): void => {
    out = (out + d.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, output: () => out };
}

/** How long a process may take to be ready: on 2 busy cores, module loading alone has taken 6–11 s. */
const START_MS = 120_000;

const exited = (c: ChildProcess) => new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r())));

async function waitFor(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * Starts the stack (`coordinators` coordinator processes, 1 by default, the client talking to the first) and waits
 * until every coordinator answers and every worker says it is ready. REDIS_CLUSTER_NODES in the environment puts
 * it on that Redis Cluster.
 */
export async function startBenchStack(options: { name: string; workers: number; coordinators?: number; env?: Record<string, string>; workerEnv?: Record<string, string> }): Promise<BenchStack> {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const clusterNodes = process.env.REDIS_CLUSTER_NODES ?? '';
  if (!clusterNodes && !(await redisAnswers(redisUrl))) throw new Error(`Redis is not reachable at ${redisUrl} (set REDIS_URL)`);
  const prefix = `bench-${options.name}-${process.pid}-${Date.now().toString(36)}`;
  const ports = await Promise.all(Array.from({ length: options.coordinators ?? 1 }, () => freePort()));
  // The services' default store goes in a folder of the benchmark's own, removed at stop, not the user's data folder.
  const dataDir = mkdtempSync(join(tmpdir(), 'orrery-bench-'));
  const env = { REDIS_URL: redisUrl, REDIS_CLUSTER_NODES: clusterNodes, QUEUE_PREFIX: prefix, API_KEYS: '', ORRERY_DATA_DIR: dataDir, ...options.env };
  const coordinators = ports.map((port) => spawnApp('coordinator', { ...env, PORT: String(port) }));
  const coordinator = coordinators[0]!;
  const port = ports[0]!;
  const workers = Array.from({ length: options.workers }, (_, i) => spawnApp('subagents', { WORKER_NAME: `bench-worker-${i + 1}`, ...env, ...options.workerEnv }));
  const all = [...coordinators, ...workers];
  const url = `http://127.0.0.1:${port}`;
  const client = new OrreryClient(url);
  const stop = async () => {
    for (const a of all) if (a.child.exitCode === null) a.child.kill('SIGTERM');
    await Promise.all(all.map((a) => exited(a.child)));
    // A cluster of the benchmark's own is torn down whole.
    if (!clusterNodes) await dropPrefix(redisUrl, prefix);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    for (const [i, c] of coordinators.entries()) {
      const probe = new OrreryClient(`http://127.0.0.1:${ports[i]}`);
      await waitFor(
        async () => {
          if (c.child.exitCode !== null) throw new Error(`a coordinator exited: ${c.output()}`);
          return probe.healthy(500);
        },
        START_MS,
        'the coordinators to answer /healthz',
      );
    }
    for (const w of workers) {
      await waitFor(
        () => {
          if (w.child.exitCode !== null) throw new Error(`a worker exited: ${w.output()}`);
          return /ready/i.test(w.output());
        },
        START_MS,
        'the workers to start',
      );
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { prefix, url, client, coordinator: coordinator.child, coordinators: coordinators.map((c) => c.child), workers: workers.map((w) => w.child), workerOutput: () => workers.map((w) => w.output()), stop };
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : NaN;
};
export const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]! : NaN;
};
