/**
 * `npm run bench:open-bodies -- [--requests 300] [--attackers 8] [--coordinator <main.js>]`: what unauthenticated bodies on an open route cost
 * a tenant. One coordinator with API keys answers `GET /v1/research` for a right key, one request at a time:
 * first alone (the baseline), then while `attackers` clients without a key send 1 MB nested-array bodies to
 * `POST /` in a loop. Both phases run in the same process against the same coordinator (`--coordinator` runs
 * another build of it, to compare). It prints the GET's latency and the coordinator's CPU in each phase; the
 * attacking clients share the machine, so the latency under attack includes their own CPU.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { dropPrefix, freePort, redisAnswers } from '@orrery/runtime';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
/** `attackers` loops without a key, each sending 1 MB of nested arrays to POST / again as soon as it is answered; prints how many were sent. */
const ATTACK = `
const [base, n] = process.argv.slice(1);
const half = 1 << 19;
const bomb = '['.repeat(half) + ']'.repeat(half);
let sent = 0;
const loop = async () => { for (;;) { await fetch(base + '/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: bomb }).then((r) => r.arrayBuffer(), () => undefined); sent++; } };
for (let i = 0; i < Number(n); i++) loop();
setInterval(() => console.log(sent), 500);
process.on('SIGTERM', () => { console.log(sent); process.exit(0); });
`;
const GIVE_UP_MS = 10_000;
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { requests: { type: 'string', default: '300' }, attackers: { type: 'string', default: '8' }, coordinator: { type: 'string' } } });
  const requests = Number(values.requests);
  const attackers = Number(values.attackers);
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (!(await redisAnswers(redisUrl))) throw new Error(`Redis is not reachable at ${redisUrl}`);
  const key = randomBytes(32).toString('hex');
  const prefix = `bench-open-bodies-${process.pid}`;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const root = resolve(__dirname, '..', '..', '..');
  let child: ChildProcess | undefined;
  try {
    child = spawn(process.execPath, [resolve(values.coordinator ?? resolve(root, 'apps/coordinator/dist/main.js'))], {
      env: { PATH: process.env.PATH ?? '', REDIS_URL: redisUrl, QUEUE_PREFIX: prefix, PORT: String(port), ENGINE: 'simulated', API_KEYS: key, QUOTA_REQUESTS_PER_MINUTE: '0', NO_COLOR: '1' },
      stdio: 'ignore',
    });
    for (let i = 0; i < 600 && !(await fetch(`${base}/healthz`).then((r) => r.ok, () => false)); i++) await sleep(100);
    let unanswered = 0;
    /** One GET's milliseconds; one with no answer within GIVE_UP_MS counts as that long, and as unanswered. */
    const once = async (): Promise<number> => {
      const t = process.hrtime.bigint();
      try {
        const res = await fetch(`${base}/v1/research`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(GIVE_UP_MS) });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`GET /v1/research answered ${res.status}`);
      } catch (err) {
        if ((err as Error).name !== 'TimeoutError') throw err;
        unanswered++;
      }
      return Number(process.hrtime.bigint() - t) / 1e6;
    };
    const measure = async () => {
      const ms: number[] = [];
      const [cpu0, t0] = [cpuSeconds(child!.pid!), Date.now()];
      for (let i = 0; i < requests; i++) ms.push(await once());
      return { ms, cpuShare: (cpuSeconds(child!.pid!) - cpu0) / ((Date.now() - t0) / 1000) };
    };
    for (let i = 0; i < 100; i++) await once();
    const idle = await measure();

    // The attackers run in a process of their own, so that sending their bodies does not slow the measuring loop.
    const attackers_ = spawn(process.execPath, ['-e', ATTACK, base, String(attackers)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let sent = '0';
    attackers_.stdout!.on('data', (d: Buffer) => (sent = d.toString().trim().split('\n').at(-1) ?? sent));
    await sleep(1000);
    const attacked = await measure();
    attackers_.kill('SIGTERM');
    await new Promise((r) => attackers_.once('exit', r));

    const baseline = quantile(idle.ms, 0.5);
    console.log(`GET /v1/research with a right key, ${requests} requests per phase; ${attackers} clients without a key sent ${sent} bodies of 1 MB to POST / during the second; ${unanswered} GETs got no answer within ${GIVE_UP_MS / 1000} s`);
    for (const [name, { ms, cpuShare }] of [['idle (baseline)', idle], ['under the bodies', attacked]] as const) {
      const median = quantile(ms, 0.5);
      console.log(`${name.padEnd(18)} median ${median.toFixed(2)} ms  p90 ${quantile(ms, 0.9).toFixed(2)} ms  ${(median / baseline).toFixed(2)}x  coordinator CPU ${(cpuShare * 100).toFixed(0)}% of a core`);
    }
  } finally {
    child?.kill('SIGTERM');
    await sleep(500);
    await dropPrefix(redisUrl, prefix).catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(err.message);
    process.exit(1);
  },
);
