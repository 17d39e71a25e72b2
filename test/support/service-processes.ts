import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { freePort } from '@orrery/runtime';
import { SPAWN_ENV, REDIS_URL, ROOT } from './test-env';

export { freePort };

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  output: () => string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}


/** Starts a built app (`coordinator` or `subagents`) as a real OS process. */
export function spawnApp(app: 'coordinator' | 'subagents', env: Record<string, string>, name: string = app): ServiceProcess {
  const child = spawn(process.execPath, [resolve(ROOT, 'apps', app, 'dist', 'main.js')], {
    env: { PATH: process.env.PATH ?? '', REDIS_URL, NO_COLOR: '1', ...SPAWN_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  return {
    name,
    child,
    output: () => out,
    kill: (signal = 'SIGTERM') =>
      new Promise((res) => {
        if (child.exitCode !== null || child.signalCode !== null) return res();
        child.once('exit', () => res());
        child.kill(signal);
      }),
  };
}

export async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/**
 * How long a spawned process may take to be ready: module loading alone took 6–11 s on 2 busy cores, and a stack's
 * processes start together, beside other test files' (over 60 s each on 2 cores shared with other suites).
 */
const PROCESS_START_MS = 120_000;

/** A coordinator process on a free port (or `env.PORT`), ready when /healthz answers. */
export async function startCoordinatorProcess(env: Record<string, string>): Promise<ServiceProcess & { url: string }> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const proc = spawnApp('coordinator', { PORT: String(port), ...env });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (proc.child.exitCode !== null) throw new Error(`coordinator exited: ${proc.output()}`);
      // Ours, not another stack's: two stacks starting at once can be handed the same free port, and the one that
      // loses the bind exits while the winner answers /healthz on it (its client would then drive the other stack).
      if (!new RegExp(`listening on \\S+:${port}\\b`).test(proc.output())) return false;
      return fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    },
    PROCESS_START_MS,
    'the coordinator to answer /healthz',
  ).catch(stopAndThrow(proc));
  return { ...proc, url };
}

/** A subagent worker process, ready when it says so. */
export async function startWorkerProcess(env: Record<string, string>, name: string): Promise<ServiceProcess> {
  const proc = spawnApp('subagents', { WORKER_NAME: name, ...env }, name);
  await waitFor(
    () => {
      if (proc.child.exitCode !== null) throw new Error(`${name} exited: ${proc.output()}`);
      return proc.output().includes('ready');
    },
    PROCESS_START_MS,
    `${name} to start`,
  ).catch(stopAndThrow(proc));
  return proc;
}

/** A process that did not come up in time is not left running (and loading the machine) behind the failed test. */
function stopAndThrow(proc: ServiceProcess): (e: unknown) => Promise<never> {
  return async (e) => {
    await proc.kill('SIGKILL');
    throw e;
  };
}
