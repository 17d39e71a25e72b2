/**
 * npm run bench:orchestration [-- --redis node|cluster --out bench-orchestration.json --samples 60 --warmup 20 --raw 300 --heap-mb 256 --scale-runs 16 --tasks 10000]
 *
 * Orchestration cost of Orrery against raw BullMQ, measured in the same run on a Redis of its own (so that other
 * Redis users do not pollute INFO commandstats or used_memory): one redis-server, or with `--redis cluster` a Redis
 * Cluster of 3 masters with a replica each. Simulated engine throughout.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Queue, QueueEvents, Worker } from 'bullmq';
import { bullConnection, closeBullConnection, connectRedis, freePort, masters, queuePrefix, type RedisClient, type RedisLocation, redisAnswers, redisLocationFields } from '@orrery/runtime';
import { z } from 'zod';
import { OwnedRedisCluster } from '../support/redis-topology';
import { type BenchStack, median, percentile, startBenchStack } from '../support/service-stack';

const { values: args } = parseArgs({
  options: {
    out: { type: 'string', default: 'bench-orchestration.json' },
    redis: { type: 'string', default: 'node' },
    samples: { type: 'string', default: '60' },
    warmup: { type: 'string', default: '20' },
    only: { type: 'string' },
    raw: { type: 'string', default: '300' },
    'scale-runs': { type: 'string', default: '16' },
    'scale-latency': { type: 'string', default: '400' },
    tasks: { type: 'string', default: '10000' },
    'heap-mb': { type: 'string', default: '256' },
  },
});
const SAMPLES = Number(args.samples);
const WARMUP = Number(args.warmup);
const ONLY = args.only ? new Set(args.only.split(',')) : undefined;
/** `--only dispatch,fanout,scaling,memory` runs part of the benchmark. */
const want = (measure: string) => !ONLY || ONLY.has(measure);
const RAW = Number(args.raw);
const SCALE_RUNS = Number(args['scale-runs']);
const SCALE_LATENCY = Number(args['scale-latency']);
const MEMORY_TASKS = Number(args.tasks);
/**
 * Finished runs expire after this long in the memory run (the least the config allows): Redis reaches its
 * steady state (runs expiring as fast as they finish) once this much time has passed, well inside the run.
 */
const MEMORY_RUN_RETENTION_SECONDS = 5;
const HEAP_MB = Number(args['heap-mb']);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


async function ownRedis(): Promise<{ url: string; child: ChildProcess; dir: string }> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'orrery-bench-redis-'));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (await redisAnswers(url, 500)) return { url, child, dir };
    await sleep(100);
  }
  throw new Error('redis-server did not start');
}

/* ------------------------------------------------------------------------------------------- helpers */

type Ev = { type: string; ts: string; round?: number; taskId?: string };

/** Redis commands this benchmark sends itself (polling, reading events), to keep them out of Orrery's cost. */
let benchCommands = 0;

async function events(redis: RedisClient, prefix: string, runId: string): Promise<Ev[]> {
  benchCommands++;
  const entries = await redis.xrange(`${prefix}:run:{${runId}}:events`, '-', '+');
  return entries.map(([, f]) => JSON.parse(f[f.indexOf('event') + 1]!) as Ev);
}

async function waitDone(redis: RedisClient, prefix: string, runId: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    benchCommands++;
    const raw = await redis.get(`${prefix}:run:{${runId}}`);
    const status = raw ? (JSON.parse(raw) as { status: string }).status : '';
    if (status === 'done') return;
    if (status === 'failed' || status === 'cancelled') throw new Error(`run ${runId} ended ${status}`);
    await sleep(20);
  }
  throw new Error(`run ${runId} did not finish`);
}

/** Commands every master has served (INFO commandstats, summed). */
async function commandCount(redis: RedisClient): Promise<number> {
  let n = 0;
  for (const node of masters(redis)) {
    benchCommands++;
    for (const m of (await node.info('commandstats')).matchAll(/calls=(\d+)/g)) n += Number(m[1]);
  }
  return n;
}

/** utime + stime of a process in ms, from /proc (Linux). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function usedMemoryMb(redis: RedisClient): Promise<number> {
  let bytes = 0;
  for (const node of masters(redis)) bytes += Number(/used_memory:(\d+)/.exec(await node.info('memory'))?.[1] ?? NaN);
  return bytes / 1024 / 1024;
}

const r1 = (x: number) => Math.round(x * 10) / 10;
const r2 = (x: number) => Math.round(x * 100) / 100;

/* -------------------------------------------------------------------------------------------- measures */

/** add → process → completion seen through QueueEvents, one job at a time, back to back, the worker in this process. */
async function rawBullmqInProcess(location: RedisLocation, n: number): Promise<number[]> {
  const connection = bullConnection(location, { maxRetriesPerRequest: null });
  const prefix = queuePrefix(`bench-raw-${process.pid}`);
  const queue = new Queue('raw', { connection, prefix });
  const worker = new Worker('raw', async (job) => ({ echo: job.data.i }), { connection, prefix, concurrency: 1 });
  const qe = new QueueEvents('raw', { connection, prefix });
  queue.on('error', () => undefined);
  worker.on('error', () => undefined);
  qe.on('error', () => undefined);
  await Promise.all([queue.waitUntilReady(), worker.waitUntilReady(), qe.waitUntilReady()]);
  const out: number[] = [];
  for (let i = 0; i < n + 10; i++) {
    const t0 = performance.now();
    const job = await queue.add('t', { i }, { removeOnComplete: 1000 });
    await job.waitUntilFinished(qe);
    if (i >= 10) out.push(performance.now() - t0);
  }
  await worker.close();
  await qe.close();
  await queue.obliterate({ force: true });
  await queue.close();
  closeBullConnection(connection);
  return out;
}

/** Raw BullMQ in Orrery's shape: this process adds and sees the completion, a worker process of its own echoes. */
async function rawBullmqBaseline(location: RedisLocation): Promise<{ sample: () => Promise<{ ms: number; externalMs: number }>; close: () => Promise<void> }> {
  const connection = bullConnection(location, { maxRetriesPerRequest: null });
  const prefix = queuePrefix(`bench-rawx-${process.pid}`);
  const where = JSON.stringify({ REDIS_URL: location.REDIS_URL, REDIS_CLUSTER_NODES: location.REDIS_CLUSTER_NODES.map((n) => `${n.host}:${n.port}`).join(',') });
  const child = spawn(process.execPath, [join(__dirname, 'raw-bullmq-worker.js'), where, prefix, 'raw'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => (/ready/.test(d.toString()) ? resolve() : undefined));
    child.once('exit', () => reject(new Error('the raw BullMQ worker exited')));
  });
  const queue = new Queue('raw', { connection, prefix });
  const qe = new QueueEvents('raw', { connection, prefix });
  queue.on('error', () => undefined);
  qe.on('error', () => undefined);
  await Promise.all([queue.waitUntilReady(), qe.waitUntilReady()]);
  let i = 0;
  return {
    sample: async () => {
      const t0 = performance.now();
      const job = await queue.add('t', { i: i++ }, { removeOnComplete: 1000 });
      await job.waitUntilFinished(qe);
      return { ms: performance.now() - t0, externalMs: Date.now() - job.timestamp };
    },
    close: async () => {
      child.kill('SIGTERM');
      await qe.close();
      await queue.obliterate({ force: true });
      await queue.close();
      closeBullConnection(connection);
    },
  };
}

/** A counter or histogram field of the coordinator's /metrics, e.g. `orrery_task_round_trip_seconds_sum{kind="search"}`. */
async function metricValue(baseUrl: string, series: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

/**
 * One search task per run at zero latency. Its round trip (dispatch → worker → result checked and merged)
 * is what the coordinator observes into orrery_task_round_trip_seconds; one task per run, so the change of
 * the histogram's sum is that task's time. The external view: the task job's creation stamp to its
 * `task.completed` entry in the run's event stream, both millisecond clocks, as a check on the first.
 */
async function orrerySample(stack: BenchStack, redis: RedisClient, i: number): Promise<{ ms: number; externalMs: number } | undefined> {
  const series = 'orrery_task_round_trip_seconds_sum{kind="search"}';
  const before = await metricValue(stack.url, series);
  const { id } = await stack.client.submit({ topic: `dispatch overhead sample ${i} across many facets`, engine: 'simulated' });
  await waitDone(redis, stack.prefix, id);
  const after = await metricValue(stack.url, series);
  const entries = await redis.xrange(`${stack.prefix}:run:{${id}}:events`, '-', '+');
  const completed = entries.find(([, f]) => (JSON.parse(f[f.indexOf('event') + 1]!) as Ev).type === 'task.completed');
  const created = Number(await redis.hget(`${queuePrefix(stack.prefix)}:subagents:${id}.r1.t1`, 'timestamp'));
  if (!completed || !created || after <= before) return undefined;
  return { ms: (after - before) * 1000, externalMs: Number(completed[0].split('-')[0]) - created };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

interface MemorySample {
  tasks: number;
  seconds: number;
  redisMb: number;
  rssMb: number;
  rssByProcessMb: number[];
  coordinatorHeapUsedMb: number;
}

/** MEMORY_TASKS tasks through runs of 6 searches and a writer, 12 runs in flight; Redis and process memory sampled ten times. */
async function memoryRun(redis: RedisClient, heapMb: number): Promise<{ tasks: number; seconds: number; baselineRedisMb: number; samples: MemorySample[] }> {
  const stack = await startBenchStack({
    name: 'memory',
    workers: 2,
    env: {
      ENGINE: 'simulated',
      SIMULATED_SUBTOPICS: '6',
      SIMULATED_ROUNDS: '1',
      JUDGE: 'off',
      COORDINATOR_CONCURRENCY: '16',
      JOB_RETENTION_COUNT: '1000',
      RUN_RETENTION_SECONDS: String(MEMORY_RUN_RETENTION_SECONDS),
      ...(heapMb ? { NODE_OPTIONS: `--max-old-space-size=${heapMb}` } : {}),
    },
    workerEnv: { SUBAGENT_CONCURRENCY: '16', SIMULATED_LATENCY_MS: '0' },
  });
  const pids = [stack.coordinator.pid!, ...stack.workers.map((w) => w.pid!)];
  const samples: MemorySample[] = [];
  const baselineRedisMb = r2(await usedMemoryMb(redis));
  const t0 = Date.now();
  let done = 0;
  let nextSample = 0;
  const perRun = 7; // 6 searches + the writer
  let submitted = 0;
  const one = async (): Promise<void> => {
    while (submitted * perRun < MEMORY_TASKS) {
      submitted++;
      const { id } = await stack.client.submit({ topic: `memory sample ${submitted}: economy, immigration, war and health policy`, engine: 'simulated' });
      await waitDone(redis, stack.prefix, id, 600_000);
      done += perRun;
      if (done >= nextSample) {
        nextSample += Math.max(perRun, Math.floor(MEMORY_TASKS / 10));
        const heap = await metricValue(stack.url, 'orrery_coordinator_nodejs_heap_size_used_bytes');
        samples.push({
          tasks: done,
          seconds: r1((Date.now() - t0) / 1000),
          redisMb: r2(await usedMemoryMb(redis)),
          rssMb: r1(pids.reduce((n, p) => n + rssMb(p), 0)),
          rssByProcessMb: pids.map((p) => r1(rssMb(p))),
          coordinatorHeapUsedMb: r1(heap / 1024 / 1024),
        });
      }
    }
  };
  await Promise.all(Array.from({ length: 12 }, one));
  await stack.stop();
  return { tasks: done, seconds: r1((Date.now() - t0) / 1000), baselineRedisMb, samples };
}

async function main(): Promise<void> {
  if (args.redis !== 'node' && args.redis !== 'cluster') throw new Error('--redis is node or cluster');
  const onCluster = args.redis === 'cluster';
  const redisServer = onCluster ? undefined : await ownRedis();
  const redisCluster = onCluster ? await OwnedRedisCluster.start(3) : undefined;
  if (redisServer) process.env.REDIS_URL = redisServer.url;
  if (redisCluster) process.env.REDIS_CLUSTER_NODES = redisCluster.env.REDIS_CLUSTER_NODES;
  const location = z.object(redisLocationFields).parse(process.env);
  const redis = connectRedis(location, { maxRetriesPerRequest: 3 });
  // A Cluster client knows its masters once it has connected.
  await redis.ping();
  const results: Record<string, unknown> = { machine: { cpus: (await import('node:os')).cpus().length, node: process.version }, redis: onCluster ? 'cluster: 3 masters, a replica each' : 'one redis-server' };
  const rows: [string, string, string, string][] = [];
  // Each row is printed as it is measured: a later measure that fails does not take the earlier ones with it.
  const table = { push: (row: [string, string, string, string]) => (rows.push(row), console.log(row.join(' | '))) };
  try {
    /* 1. dispatch overhead: Orrery and raw BullMQ samples interleaved, so both see the same machine state and pacing */
    let stack: BenchStack;
    let orrery: number[] = [];
    if (want('dispatch')) {
      const inProcess = await rawBullmqInProcess(location, RAW);
      const rawBase = await rawBullmqBaseline(location);
      stack = await startBenchStack({
        name: 'dispatch',
        workers: 1,
        env: { ENGINE: 'simulated', SIMULATED_SUBTOPICS: '1', SIMULATED_ROUNDS: '1', SIMULATED_LATENCY_MS: '0', JUDGE: 'off' },
        workerEnv: { SUBAGENT_CONCURRENCY: '1' },
      });
      const raw: number[] = [];
      const rawExternal: number[] = [];
      orrery = [];
      const orreryExternal: number[] = [];
      for (let i = 0; i < SAMPLES + WARMUP; i++) {
        const r = await rawBase.sample();
        const o = await orrerySample(stack, redis, i);
        if (i < WARMUP || !o) continue;
        raw.push(r.ms);
        rawExternal.push(r.externalMs);
        orrery.push(o.ms);
        orreryExternal.push(o.externalMs);
    }
    await rawBase.close();
    await stack.stop();
    const dispatchRatio = median(orrery) / median(raw);
    const p99Ratio = percentile(orrery, 99) / percentile(raw, 99);
    const overheadMs = median(orrery) - median(raw);
    const dispatch = {
      overheadMs: r2(overheadMs),
      target: '≤ 5 ms over a raw job',
      met: overheadMs <= 5,
      orreryMedianMs: r2(median(orrery)),
      orreryP99Ms: r2(percentile(orrery, 99)),
      rawMedianMs: r2(median(raw)),
      rawP99Ms: r2(percentile(raw, 99)),
      ratio: r2(dispatchRatio),
      p99Ratio: r2(p99Ratio),
      samples: orrery.length,
      warmup: WARMUP,
      baseline: 'raw BullMQ with its worker in a process of its own, interleaved with the Orrery samples',
      externalCheck: { note: 'job creation stamp → completion, millisecond clocks; means', orreryMeanMs: r2(mean(orreryExternal)), rawMeanMs: r2(mean(rawExternal)), ratio: r2(mean(orreryExternal) / mean(rawExternal)) },
      rawInProcessBackToBack: { note: 'worker in the adding process, jobs back to back', medianMs: r2(median(inProcess)), p99Ms: r2(percentile(inProcess, 99)), orreryRatio: r2(median(orrery) / median(inProcess)) },
    };
    results.dispatch = dispatch;
    table.push([
      'per-task overhead over a raw BullMQ job (median)',
      `Orrery ${dispatch.orreryMedianMs} ms (p99 ${dispatch.orreryP99Ms}); raw BullMQ ${dispatch.rawMedianMs} ms (p99 ${dispatch.rawP99Ms}; ${dispatch.rawInProcessBackToBack.medianMs} ms in one process, back to back)`,
      `+${r2(overheadMs)} ms (${r2(dispatchRatio)}× raw)`,
      `≤ 5 ms ${overheadMs <= 5 ? 'met' : 'MISSED'}`,
    ]);
    }

    /* 2. fan-out: one round of as many tasks as a breadth plan dispatches, 500 ms each */
    if (want('fanout')) {
      stack = await startBenchStack({
        name: 'fanout',
        workers: 2,
        env: { ENGINE: 'simulated', SIMULATED_SUBTOPICS: '10', MAX_SUBTOPICS: '10', SIMULATED_ROUNDS: '1', JUDGE: 'off' },
        workerEnv: { SUBAGENT_CONCURRENCY: '8', SIMULATED_LATENCY_MS: '500' },
      });
      const walls: number[] = [];
      let fanTasks = 0;
      for (let i = 0; i < 3; i++) {
        const { id } = await stack.client.submit({ topic: `fan-out sample ${i}: economy, immigration, war and health policy`, engine: 'simulated' });
        await waitDone(redis, stack.prefix, id);
        const ev = await events(redis, stack.prefix, id);
        const started = ev.find((e) => e.type === 'round.started' && e.round === 1) as (Ev & { tasks?: { taskId: string }[] }) | undefined;
        const completed = ev.find((e) => e.type === 'round.completed' && e.round === 1);
        fanTasks = started?.tasks?.length ?? 0;
        // From the dispatch (the task jobs' creation stamps, taken as the coordinator adds them) to the round's end.
        const created = await Promise.all((started?.tasks ?? []).map((t) => redis.hget(`${queuePrefix(stack.prefix)}:subagents:${t.taskId}`, 'timestamp')));
        benchCommands += created.length;
        const dispatchedAt = Math.min(...created.map(Number).filter((x) => x > 0));
        if (completed && Number.isFinite(dispatchedAt)) walls.push(Date.parse(completed.ts) - dispatchedAt);
      }
      await stack.stop();
      const fanWall = median(walls);
      const fanTarget = 1.1 * 500;
      results.fanOut = { tasks: fanTasks, latencyMs: 500, wallMedianMs: fanWall, walls, targetMs: r1(fanTarget), met: fanWall <= fanTarget, span: 'first task job created (dispatch) → round.completed' };
      table.push([`fan-out (${fanTasks} tasks × 500 ms, one round)`, `${fanWall} ms wall (median of 3)`, `${r2(fanWall / 500)}× one task`, `≤ ${r1(fanTarget)} ms ${fanWall <= fanTarget ? 'met' : 'MISSED'}`]);
    }

    /* 3. horizontal scaling + 4. coordinator cost */
    if (want('scaling')) {
      const perMinute: Record<number, number> = {};
      let cost: Record<string, number> = {};
      for (const procs of [1, 2, 4]) {
        stack = await startBenchStack({
          name: `scale${procs}`,
          workers: procs,
          coordinators: 2,
          env: { ENGINE: 'simulated', SIMULATED_SUBTOPICS: '4', SIMULATED_ROUNDS: '2', JUDGE: 'off', COORDINATOR_CONCURRENCY: '8' },
          workerEnv: { SUBAGENT_CONCURRENCY: '2', SIMULATED_LATENCY_MS: String(SCALE_LATENCY) },
        });
        const cmd0 = await commandCount(redis);
        const bench0 = benchCommands;
        const cpu0 = cpuMs(stack.coordinator.pid!);
        const t0 = Date.now();
        const ids = await Promise.all(Array.from({ length: SCALE_RUNS }, (_, i) => stack.client.submit({ topic: `scaling sample ${i}: economy, immigration and health policy`, engine: 'simulated' }).then((r) => r.id)));
        await Promise.all(ids.map((id) => waitDone(redis, stack.prefix, id, 600_000)));
        const wall = Date.now() - t0;
        perMinute[procs] = r1((SCALE_RUNS * 60_000) / wall);
        if (procs === 4) {
          let tasks = 0;
          for (const id of ids) tasks += (await events(redis, stack.prefix, id)).filter((e) => e.type === 'task.completed').length + 1; // + the writer
          const cmds = (await commandCount(redis)) - cmd0 - (benchCommands - bench0);
          const cpu = cpuMs(stack.coordinator.pid!) - cpu0;
          cost = { tasks, redisCommandsPerTask: r1(cmds / tasks), coordinatorCpuMsPerTask: r2(cpu / tasks), note: 1 } as Record<string, number>;
        }
        await stack.stop();
      }
      // Against linear: n workers should finish n times the runs one does.
      const ofLinear = (n: number) => perMinute[n]! / (n * perMinute[1]!);
      const met = ofLinear(2) >= 0.9 && ofLinear(4) >= 0.9;
      results.scaling = { runsPerMinute: perMinute, ofLinear: { 2: r2(ofLinear(2)), 4: r2(ofLinear(4)) }, coordinators: 2, perWorkerConcurrency: 2, latencyMs: SCALE_LATENCY, runs: SCALE_RUNS, target: '≥ 0.9 × linear', met };
      table.push(['runs per minute, 1 / 2 / 4 workers, 2 coordinators', `${perMinute[1]} / ${perMinute[2]} / ${perMinute[4]}`, `${r2(ofLinear(2))} / ${r2(ofLinear(4))} of linear`, `≥ 0.9 ${met ? 'met' : 'MISSED'}`]);
      delete cost.note;
      results.coordinatorCost = { ...cost, scope: 'Redis commands of all service processes (coordinator, workers, QueueEvents; the benchmark’s own polling taken out) per task; CPU of the coordinator process only' };
      table.push(['coordinator cost per task', `${cost.redisCommandsPerTask} Redis commands, ${cost.coordinatorCpuMsPerTask} ms coordinator CPU`, '—', 'report']);
    }

    /* 5. memory across MEMORY_TASKS tasks: V8 as it comes, then with the heap capped (NODE_OPTIONS) */
    if (want('memory') && !onCluster) {
      const runs: Record<string, unknown> = {};
      for (const heapMb of [0, HEAP_MB]) {
        const label = heapMb ? `heap capped at ${heapMb} MB` : 'heap uncapped';
        const m = await memoryRun(redis, heapMb);
        runs[heapMb ? `heapCapped${heapMb}Mb` : 'heapUncapped'] = m;
        const first = m.samples[0]!;
        const last = m.samples.at(-1)!;
        const half = m.samples.slice(Math.floor(m.samples.length / 2));
        const spread = (xs: number[]) => r1(Math.max(...xs) - Math.min(...xs));
        table.push([
          `memory (${m.tasks} tasks, ${label})`,
          `Redis ${first.redisMb} → ${last.redisMb} MB; RSS (all procs) ${first.rssMb} → ${last.rssMb} MB`,
          `2nd half spread: Redis ${spread(half.map((x) => x.redisMb))} MB, RSS ${spread(half.map((x) => x.rssMb))} MB`,
          'flat within retention',
        ]);
      }
      results.memory = { ...runs, retention: { JOB_RETENTION_COUNT: 1000, RUN_RETENTION_SECONDS: MEMORY_RUN_RETENTION_SECONDS } };
    }
  } finally {
    redis.disconnect();
    redisServer?.child.kill('SIGKILL');
    if (redisServer) rmSync(redisServer.dir, { recursive: true, force: true });
    await redisCluster?.destroy();
  }

  const widths = [0, 1, 2, 3].map((i) => Math.max(...[['measure', 'result', 'ratio', 'target'], ...rows].map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(['measure', 'result', 'ratio', 'target']));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
  writeFileSync(args.out!, JSON.stringify({ ...results, table: rows }, null, 2));
  console.log(`\nwritten to ${args.out}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
