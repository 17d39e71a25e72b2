/**
 * `npm run bench:request-meter -- [--requests 3000]`: what the per-key request meter (QUOTA_REQUESTS_PER_MINUTE)
 * adds to a request. Two coordinators on one Redis, one metering a tenant key (with a limit it never reaches) and
 * one not (the baseline, limit 0), answer `GET /v1/research` for that key, interleaved one request at a time.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { dropPrefix, freePort, redisAnswers } from '@orrery/runtime';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { requests: { type: 'string', default: '3000' } } });
  const requests = Number(values.requests);
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (!(await redisAnswers(redisUrl))) throw new Error(`Redis is not reachable at ${redisUrl}`);
  const key = randomBytes(24).toString('hex');
  const root = resolve(__dirname, '..', '..', '..');
  const lanes: { name: string; limit: number; prefix: string; base: string; child?: ChildProcess; ms: number[] }[] = [
    { name: 'metered', limit: 1_000_000_000, prefix: `bench-meter-on-${process.pid}`, base: '', ms: [] },
    { name: 'baseline (no meter)', limit: 0, prefix: `bench-meter-off-${process.pid}`, base: '', ms: [] },
  ];
  try {
    for (const lane of lanes) {
      const port = await freePort();
      lane.base = `http://127.0.0.1:${port}`;
      lane.child = spawn(process.execPath, [resolve(root, 'apps/coordinator/dist/main.js')], {
        env: { PATH: process.env.PATH ?? '', REDIS_URL: redisUrl, QUEUE_PREFIX: lane.prefix, PORT: String(port), ENGINE: 'simulated', API_KEYS: key, QUOTA_REQUESTS_PER_MINUTE: String(lane.limit), NO_COLOR: '1' },
        stdio: 'ignore',
      });
    }
    for (const lane of lanes) for (let i = 0; i < 300 && !(await fetch(`${lane.base}/healthz`).then((r) => r.ok, () => false)); i++) await sleep(100);
    const once = async (base: string): Promise<number> => {
      const t = process.hrtime.bigint();
      const res = await fetch(`${base}/v1/research`, { headers: { authorization: `Bearer ${key}` } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`GET /v1/research answered ${res.status}`);
      return Number(process.hrtime.bigint() - t) / 1e6;
    };
    for (let i = 0; i < 200; i++) for (const lane of lanes) await once(lane.base);
    for (let i = 0; i < requests; i++) for (const lane of lanes) lane.ms.push(await once(lane.base));
    const baseline = quantile(lanes[1]!.ms, 0.5);
    console.log(`GET /v1/research with a tenant key, ${requests} requests per lane, interleaved`);
    for (const lane of lanes) {
      const median = quantile(lane.ms, 0.5);
      console.log(`${lane.name.padEnd(22)} median ${median.toFixed(3)} ms  p90 ${quantile(lane.ms, 0.9).toFixed(3)} ms  ${(median / baseline).toFixed(2)}x`);
    }
  } finally {
    for (const lane of lanes) lane.child?.kill('SIGTERM');
    await sleep(500);
    for (const lane of lanes) await dropPrefix(redisUrl, lane.prefix).catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(err.message);
    process.exit(1);
  },
);
