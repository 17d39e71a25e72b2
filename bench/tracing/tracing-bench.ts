/**
 * `npm run bench:tracing -- [--jobs 400] [--rounds 3]`: what tracing adds to a task. Each lane is a fresh process
 * that queues `jobs` BullMQ jobs and works them at concurrency 1, each a fixed 1 ms of work inside the worker's task
 * span, and reports the wall time per job (queueing included):
 * - no SDK: no telemetry option, no task span (the code before tracing);
 * - tracing off: OTEL_* unset, so BullMQ gets no telemetry and the task span is the API's no-op;
 * - tracing on: OTLP/HTTP export to a sink in this process, BullMQ's spans and the task span recorded.
 * Lanes alternate over `rounds`; ratios are against the no-SDK lane's median. A real task waits seconds on the
 * model, so a 1 ms task bounds the overhead from above.
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
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function work(ms: number): string {
  const end = performance.now() + ms;
  let h = 'x';
  while (performance.now() < end) h = createHash('sha256').update(h).digest('hex');
  return h;
}

async function runLane(lane: Lane, jobs: number, redisUrl: string): Promise<number> {
  if (lane === 'on') startTracing('orrery-bench');
  const prefix = `bench-tracing-${process.pid}`;
  const connection = { url: redisUrl, maxRetriesPerRequest: null };
  const telemetry = lane === 'no-sdk' ? undefined : bullTelemetry();
  const queue = new Queue('bench', { connection, prefix, ...(telemetry ? { telemetry } : {}) });
  let done = 0;
  let finished!: () => void;
  const all = new Promise<void>((r) => (finished = r));
  const started = performance.now();
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
  const perJob = (performance.now() - started) / jobs;
  await worker.close();
  await queue.close();
  await dropPrefix(redisUrl, prefix);
  await stopTracing();
  return perJob;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { jobs: { type: 'string', default: '400' }, rounds: { type: 'string', default: '3' }, lane: { type: 'string' } } });
  const jobs = Number(values.jobs);
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (values.lane) {
    process.stdout.write(`${await runLane(values.lane as Lane, jobs, redisUrl)}\n`);
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
  const results: Record<Lane, number[]> = { 'no-sdk': [], off: [], on: [] };
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const lane of LANES) {
      const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, REDIS_URL: redisUrl, ...(lane === 'on' ? { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } : {}) };
      const out = await new Promise<string>((res, rej) => {
        const child = spawn(process.execPath, [__filename, '--lane', lane, '--jobs', String(jobs)], { env, stdio: ['ignore', 'pipe', 'inherit'] });
        let text = '';
        child.stdout.on('data', (d) => (text += d));
        child.on('exit', (code) => (code === 0 ? res(text) : rej(new Error(`lane ${lane} exited ${code}`))));
      });
      results[lane].push(Number(out.trim()));
    }
  }
  sink.close();
  const base = median(results['no-sdk']);
  console.log(`${jobs} jobs per lane, ${values.rounds} rounds, 1 ms of work per task; ${exported} OTLP exports received from the traced lane`);
  for (const lane of LANES) {
    const m = median(results[lane]);
    console.log(`${lane.padEnd(7)} ${m.toFixed(3)} ms per job (runs: ${results[lane].map((x) => x.toFixed(3)).join(', ')})  ratio ${(m / base).toFixed(3)}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
