import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { dropPrefix, freePort } from '@orrery/runtime';
import { OrreryClient } from '@orrery/cli/dist/client/orrery-client';

/** Benchmarks drive the real service: a coordinator process and worker processes, on a key prefix of their own. */
export interface BenchStack {
  prefix: string;
  url: string;
  client: OrreryClient;
  coordinator: ChildProcess;
  workers: ChildProcess[];
  stop(): Promise<void>;
}

const ROOT = resolve(__dirname, '..', '..', '..');


function spawnApp(app: 'coordinator' | 'subagents', env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [resolve(ROOT, 'apps', app, 'dist', 'main.js')], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr?.on('data', (d) => (err = (err + d).slice(-4000)));
  child.on('exit', (code) => { if (code) console.error(`${app} exited ${code}: ${err}`); });
  return child;
}

const exited = (c: ChildProcess) => new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r())));

export async function startBenchStack(options: { name: string; workers: number; env?: Record<string, string>; workerEnv?: Record<string, string> }): Promise<BenchStack> {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `bench-${options.name}-${process.pid}-${Date.now().toString(36)}`;
  const port = await freePort();
  const env = { REDIS_URL: redisUrl, QUEUE_PREFIX: prefix, PORT: String(port), API_KEYS: '', ...options.env };
  const coordinator = spawnApp('coordinator', env);
  const workers = Array.from({ length: options.workers }, () => spawnApp('subagents', { ...env, ...options.workerEnv }));
  const url = `http://127.0.0.1:${port}`;
  const client = new OrreryClient(url);
  for (let i = 0; i < 200 && !(await client.healthy(500)); i++) await new Promise((r) => setTimeout(r, 100));
  if (!(await client.healthy())) throw new Error(`coordinator for ${options.name} did not start`);
  // Workers announce readiness only in their logs; a short settle keeps the first run from timing their startup.
  await new Promise((r) => setTimeout(r, 1500));
  return {
    prefix,
    url,
    client,
    coordinator,
    workers,
    stop: async () => {
      for (const c of [coordinator, ...workers]) c.kill('SIGTERM');
      await Promise.all([coordinator, ...workers].map(exited));
      await dropPrefix(redisUrl, prefix);
    },
  };
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : NaN;
};
export const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]! : NaN;
};
