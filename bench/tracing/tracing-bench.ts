/**
 * `npm run bench:tracing -- [--jobs 150] [--rounds 9]`: what tracing adds to a task. Each lane is a fresh process
 * that queues `jobs` BullMQ jobs and works them at concurrency 1, each a fixed 1 ms of work inside the worker's task
 * span, and reports the wall time and the process's CPU time per job (queueing included):
 * - no SDK: no telemetry option, no task span (the code before tracing);
 * - tracing off: OTEL_* unset, so BullMQ gets no telemetry and the task span is the API's no-op;
 * - tracing on: OTLP/HTTP export to a sink in this process, BullMQ's spans and the task span recorded.
 * Each round runs the three lanes back to back, in an order that rotates from round to round, and gives each lane's
 * ratio to that round's no-SDK lane: a machine whose load changes between rounds moves all three lanes of a round
 * alike. The median of the per-round ratios is reported with their interquartile range. CPU time counts what the
 * process itself did, so it is steadier than wall time on a shared machine. A real task waits seconds on the model,
 * so a 1 ms task bounds the overhead from above.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Queue, Worker } from 'bullmq';
import { bullTelemetry, dropPrefix, inSpan, redisAnswers, startTracing, stopTracing } from '@orrery/runtime';

type Lane = 'no-sdk' | 'off' | 'on';
const LANES: Lane[] = ['no-sdk', 'off', 'on'];
/** The q-quantile, interpolated between the sorted values. */
function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (at - lo);
}

interface LaneResult {
  wallMs: number;
  cpuMs: number;
}

function work(ms: number): string {
  const end = performance.now() + ms;
  let h = 'x';
  while (performance.now() < end) h = createHash('sha256').update(h).digest('hex');
  return h;
}

async function runLane(lane: Lane, jobs: number, redisUrl: string): Promise<LaneResult> {
  if (lane === 'on') startTracing('orrery-bench');
  const prefix = `bench-tracing-${process.pid}`;
  const connection = { url: redisUrl, maxRetriesPerRequest: null };
  const telemetry = lane === 'no-sdk' ? undefined : bullTelemetry();
  const queue = new Queue('bench', { connection, prefix, ...(telemetry ? { telemetry } : {}) });
  let done = 0;
  let finished!: () => void;
  const all = new Promise<void>((r) => (finished = r));
  const started = performance.now();
  const cpu = process.cpuUsage();
  const worker = new Worker(
    'bench',
    async (job) => {
      const result = lane === 'no-sdk' ? work(1) : await inSpan('task bench', { 'orrery.job_id': job.id ?? '' }, async () => work(1));
      if (++done === jobs) finished();
      return result.length;
    },
    { connection, prefix, concurrency: 1, ...(telemetry ? { telemetry } : {}) },
  );
  for (let i = 0; i < jobs; i++) await queue.add('task', { i }, { removeOnComplete: true });
  await all;
  const wallMs = (performance.now() - started) / jobs;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000 / jobs;
  await worker.close();
  await queue.close();
  await dropPrefix(redisUrl, prefix);
  await stopTracing();
  return { wallMs, cpuMs };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { jobs: { type: 'string', default: '150' }, rounds: { type: 'string', default: '9' }, lane: { type: 'string' } } });
  const jobs = Number(values.jobs);
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (values.lane) {
    process.stdout.write(`${JSON.stringify(await runLane(values.lane as Lane, jobs, redisUrl))}\n`);
    return;
  }
  if (!(await redisAnswers(redisUrl))) throw new Error(`Redis is not reachable at ${redisUrl}`);
  let exported = 0;
  const sink = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      exported++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  const rounds = Number(values.rounds);
  const ratios: Record<Lane, { wall: number[]; cpu: number[] }> = { 'no-sdk': { wall: [], cpu: [] }, off: { wall: [], cpu: [] }, on: { wall: [], cpu: [] } };
  const perJob: Record<Lane, LaneResult[]> = { 'no-sdk': [], off: [], on: [] };
  for (let round = 0; round < rounds; round++) {
    const order = LANES.map((_, i) => LANES[(i + round) % LANES.length]!);
    const got = {} as Record<Lane, LaneResult>;
    for (const lane of order) {
      const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, REDIS_URL: redisUrl, ...(lane === 'on' ? { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } : {}) };
      const out = await new Promise<string>((res, rej) => {
        const child = spawn(process.execPath, [__filename, '--lane', lane, '--jobs', String(jobs)], { env, stdio: ['ignore', 'pipe', 'inherit'] });
        let text = '';
        child.stdout.on('data', (d) => (text += d));
        child.on('exit', (code) => (code === 0 ? res(text) : rej(new Error(`lane ${lane} exited ${code}`))));
      });
      got[lane] = JSON.parse(out) as LaneResult;
      perJob[lane].push(got[lane]);
    }
    for (const lane of LANES) {
      ratios[lane].wall.push(got[lane].wallMs / got['no-sdk'].wallMs);
      ratios[lane].cpu.push(got[lane].cpuMs / got['no-sdk'].cpuMs);
    }
  }
  sink.close();
  const spread = (xs: number[]) => `${quantile(xs, 0.5).toFixed(3)} (IQR ${quantile(xs, 0.25).toFixed(3)}–${quantile(xs, 0.75).toFixed(3)})`;
  console.log(`${jobs} jobs per lane, ${rounds} rounds (lane order rotating), 1 ms of work per task; ${exported} OTLP exports received from the traced lane`);
  console.log('lane     wall ms/job  CPU ms/job   wall ratio to no-SDK (median, IQR)  CPU ratio to no-SDK (median, IQR)');
  for (const lane of LANES) {
    const wall = quantile(perJob[lane].map((r) => r.wallMs), 0.5);
    const cpuMs = quantile(perJob[lane].map((r) => r.cpuMs), 0.5);
    console.log(`${lane.padEnd(8)} ${wall.toFixed(3).padStart(11)}  ${cpuMs.toFixed(3).padStart(10)}   ${spread(ratios[lane].wall).padEnd(34)}  ${spread(ratios[lane].cpu)}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
