/**
 * Chaos drills: real coordinator and worker processes (built `dist`), real Redis, real BullMQ.
 * Faults are real too: SIGKILL / SIGSTOP of OS processes, a test-owned redis-server killed and restarted.
 */
import { COORDINATOR_QUEUE, type Run, SUBAGENT_QUEUE } from '@orrery/protocol';
import { type ConnectionOptions, Queue } from 'bullmq';
import { z } from 'zod';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { OrreryClient } from '../../apps/cli/src/client/orrery-client';
import { bullConnection, closeBullConnection, connectRedis, queuePrefix, type RedisClient, type RedisLocation, redisAnswers, redisLocationFields } from '@orrery/runtime';
import { freePort, type ServiceProcess, startCoordinatorProcess, startWorkerProcess, waitFor } from '../support/service-processes';
import { OwnedRedisCluster, OwnedSentinel } from '../../bench/support/redis-topology';
import { dropPrefix, REDIS_URL, uniquePrefix } from '../support/test-env';

/* ------------------------------------------------------------------------------------------ redis-server */

/** A redis-server of the test's own: a free port, a temporary directory, AOF fsynced on every write. */
export class OwnedRedis {
  private child: ChildProcess | undefined;
  readonly dir = mkdtempSync(join(tmpdir(), 'orrery-chaos-redis-'));
  private constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<OwnedRedis> {
    const r = new OwnedRedis(await freePort());
    await r.start();
    return r;
  }

  async start(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', '', '--maxmemory-policy', 'noeviction'];
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    this.child = child;
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`redis-server on ${this.port} exited with ${child.exitCode}`);
        return redisAnswers(this.url, 500);
      },
      15_000,
      `redis-server on port ${this.port}`,
    );
  }

  /** Kills the server (SIGKILL by default: with appendfsync always, nothing acknowledged is lost). */
  async stop(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((res) => {
      child.once('exit', () => res());
      child.kill(signal);
    });
  }

  /** Stops the server without closing its sockets (SIGSTOP): a Redis that hangs rather than refuses. */
  freeze(): void {
    this.child?.kill('SIGSTOP');
  }

  thaw(): void {
    this.child?.kill('SIGCONT');
  }

  async destroy(): Promise<void> {
    this.thaw();
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/* ---------------------------------------------------------------------------------------------- cluster */

export interface ClusterOptions {
  redisUrl?: string;
  /** REDIS_CLUSTER_NODES or REDIS_SENTINELS and REDIS_SENTINEL_MASTER: the drill runs on that Redis. */
  redisEnv?: Record<string, string>;
  /** Env for every process. */
  env?: Record<string, string>;
  workerEnv?: Record<string, string>;
}

/**
 * The processes of one drill, on a queue prefix of its own; coordinators and workers can be killed and added.
 * `CHAOS_REDIS=cluster` (or `sentinel`) runs a drill that brings no Redis of its own on a Redis Cluster (or behind
 * Sentinel) that it starts and tears down.
 */
export class ChaosCluster {
  readonly prefix: string;
  readonly redisUrl: string;
  private location: RedisLocation;
  private owned: OwnedRedisCluster | OwnedSentinel | undefined;
  readonly coordinators: (ServiceProcess & { url: string })[] = [];
  readonly workers: ServiceProcess[] = [];
  private readonly env: Record<string, string>;
  private readonly logs: string[] = [];
  private redisConn: RedisClient | undefined;
  private queueHandles: { coordinator: Queue; subagents: Queue } | undefined;
  private queueConnection: ConnectionOptions | undefined;

  constructor(
    readonly name: string,
    private readonly options: ClusterOptions = {},
  ) {
    this.prefix = uniquePrefix(name);
    this.redisUrl = options.redisUrl ?? REDIS_URL;
    this.location = z.object(redisLocationFields).parse({ REDIS_URL: this.redisUrl, ...options.redisEnv });
    this.env = {
      REDIS_URL: this.redisUrl,
      ...options.redisEnv,
      QUEUE_PREFIX: this.prefix,
      ENGINE: 'simulated',
      SIMULATED_SUBTOPICS: '3',
      SIMULATED_ROUNDS: '2',
      COORDINATOR_LOCK_MS: '2000',
      SUBAGENT_LOCK_MS: '2000',
      TASK_BACKOFF_MS: '200',
      SHUTDOWN_GRACE_MS: '2000',
      ...options.env,
    };
  }

  /** A new client of the drill's Redis (one node, a Cluster or behind Sentinel). */
  connect(): RedisClient {
    const c = connectRedis(this.location, { maxRetriesPerRequest: 3 });
    c.on('error', () => undefined);
    return c;
  }

  get redis(): RedisClient {
    if (!this.redisConn) {
      this.redisConn = this.connect();
      // Redis is killed on purpose here; one listener keeps its errors from being unhandled.
      this.redisConn.on('error', () => undefined);
    }
    return this.redisConn;
  }

  get queues(): { coordinator: Queue; subagents: Queue } {
    if (!this.queueHandles) {
      const connection = (this.queueConnection = bullConnection(this.location));
      this.queueHandles = {
        coordinator: new Queue(COORDINATOR_QUEUE, { connection, prefix: queuePrefix(this.prefix) }),
        subagents: new Queue(SUBAGENT_QUEUE, { connection, prefix: queuePrefix(this.prefix) }),
      };
      for (const q of Object.values(this.queueHandles)) q.on('error', () => undefined);
    }
    return this.queueHandles;
  }

  /** A client of the newest live coordinator. */
  get client(): OrreryClient {
    const live = this.coordinators.filter((c) => c.child.exitCode === null && c.child.signalCode === null);
    const c = live.at(-1);
    if (!c) throw new Error('no live coordinator');
    return new OrreryClient(c.url);
  }

  async startCoordinator(env: Record<string, string> = {}): Promise<ServiceProcess & { url: string }> {
    const c = await startCoordinatorProcess({ ...this.env, ...env });
    this.coordinators.push(c);
    return c;
  }

  private workerCount = 0;

  async startWorker(env: Record<string, string> = {}): Promise<ServiceProcess> {
    const name = `worker-${++this.workerCount}`;
    const w = await startWorkerProcess({ ...this.env, SUBAGENT_CONCURRENCY: '2', ...this.options.workerEnv, ...env }, name);
    this.workers.push(w);
    this.workers.sort((x, y) => x.name.localeCompare(y.name));
    return w;
  }

  /** Starts coordinators and workers side by side (a 2-core machine still starts them faster together). */
  async startAll(coordinators: number, workers: number): Promise<void> {
    const topology = process.env.CHAOS_REDIS;
    if ((topology === 'cluster' || topology === 'sentinel') && !this.options.redisUrl && !this.options.redisEnv && !this.owned) {
      this.owned = topology === 'cluster' ? await OwnedRedisCluster.start(3) : await OwnedSentinel.start();
      this.location = z.object(redisLocationFields).parse({ REDIS_URL: this.redisUrl, ...this.owned.env });
      Object.assign(this.env, this.owned.env);
    }
    await Promise.all([...Array.from({ length: coordinators }, () => this.startCoordinator()), ...Array.from({ length: workers }, () => this.startWorker())]);
  }

  /** SIGKILL: no shutdown hook runs, locks are left behind, as when a machine dies. */
  async kill(proc: ServiceProcess): Promise<void> {
    await proc.kill('SIGKILL');
  }

  runKey(runId: string, suffix = ''): string {
    return `${this.prefix}:run:{${runId}}${suffix}`;
  }

  /** Resolves when the run's event stream holds an event matching `match` (polled straight from Redis). */
  async waitForEvent(runId: string, match: (e: { type: string } & Record<string, unknown>) => boolean, timeoutMs = 60_000, what = 'an event'): Promise<void> {
    await waitFor(async () => (await this.events(runId)).some(match), timeoutMs, `${what} in run ${runId}`);
  }

  async events(runId: string): Promise<({ type: string; id: string } & Record<string, unknown>)[]> {
    const entries = await this.redis.xrange(this.runKey(runId, ':events'), '-', '+');
    return entries.map(([id, fields]) => ({ ...(JSON.parse(fields[fields.indexOf('event') + 1]!) as { type: string }), id }));
  }

  async run(runId: string): Promise<Run | undefined> {
    const raw = await this.redis.get(this.runKey(runId));
    return raw ? (JSON.parse(raw) as Run) : undefined;
  }

  /** Waits until the run has ended and said so (run.finished); returns its status. */
  async waitForEnd(runId: string, timeoutMs = 90_000): Promise<string> {
    let status = '';
    await waitFor(
      async () => {
        status = (await this.run(runId))?.status ?? '';
        return ['done', 'failed', 'cancelled'].includes(status) && (await this.events(runId)).some((e) => e.type === 'run.finished');
      },
      timeoutMs,
      `run ${runId} to end`,
    );
    return status;
  }

  /** The subagent job a given worker is running right now, if any (BullMQ stamps each job with its worker's name). */
  async activeTaskOf(worker: ServiceProcess, runId: string): Promise<string | undefined> {
    const jobs = await this.queues.subagents.getActive();
    return jobs.find((job) => job.id?.startsWith(runId) && job.processedBy === worker.name)?.id;
  }

  async stop(): Promise<void> {
    writeFileSync(join(tmpdir(), `orrery-chaos-${this.name}.log`), [...this.coordinators, ...this.workers].map((p) => `==== ${p.name} (${p.child.pid})\n${p.output()}`).join('\n') + this.logs.join('\n'));
    await Promise.all([...this.coordinators, ...this.workers].map((p) => p.kill('SIGKILL')));
    if (this.queueHandles) await Promise.all(Object.values(this.queueHandles).map((q) => q.close().catch(() => undefined)));
    if (this.queueConnection) closeBullConnection(this.queueConnection);
    if (this.redisUrl === REDIS_URL && !this.options.redisEnv && !this.owned) await dropPrefix(this.prefix).catch(() => undefined);
    this.redisConn?.disconnect();
    await this.owned?.destroy();
  }
}

/* ---------------------------------------------------------------------------------------- comparisons */

/** What must be identical between a disturbed run and an undisturbed run of the same input. */
export interface RunFingerprint {
  status: string;
  findingIds: string[];
  citedSourceIds: string[];
  reportSourceIds: string[];
  completedTasks: string[];
  eventCounts: Record<string, number>;
  counters: Run['counters'];
  rounds: number;
}

/** Reads a finished run and checks it has no duplicate within itself; returns its fingerprint. */
export async function fingerprint(cluster: ChaosCluster, runId: string): Promise<RunFingerprint> {
  const run = await cluster.run(runId);
  expect(run, `run ${runId} exists`).toBeDefined();
  const strip = (s: string) => s.replace(runId, 'RUN');

  const findingIds = (await cluster.redis.hkeys(cluster.runKey(runId, ':findings'))).sort();
  const results = (await cluster.redis.hkeys(cluster.runKey(runId, ':results'))).map(strip).sort();

  const reportRaw = await cluster.redis.get(cluster.runKey(runId, ':report'));
  expect(reportRaw, `run ${runId} has a report`).toBeTruthy();
  const report = JSON.parse(reportRaw!) as { sections: { paragraphs: { citations: { sourceId: string; quote?: string }[] }[] }[]; sources: { id: string }[] };
  const citations = report.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations.map((c) => `${c.sourceId}\n${c.quote ?? ''}`)));
  expectNoDuplicates(citations, 'report citations');
  const reportSourceIds = report.sources.map((s) => s.id);
  expectNoDuplicates(reportSourceIds, 'report sources');

  const events = await cluster.events(runId);
  const completed = events.filter((e) => e.type === 'task.completed').map((e) => strip(String(e.taskId)));
  expectNoDuplicates(completed, 'task.completed events');
  expect(completed.sort()).toEqual(results);
  for (const type of ['run.created', 'plan.ready', 'report.ready', 'run.finished']) expect(events.filter((e) => e.type === type).length, `${type} events`).toBe(1);
  expectNoDuplicates(events.filter((e) => e.type === 'round.completed').map((e) => String(e.round)), 'round.completed events');
  expectNoDuplicates(events.filter((e) => e.type === 'round.started').map((e) => String(e.round)), 'round.started events');
  expect(events.filter((e) => e.type === 'task.failed'), 'task.failed events').toEqual([]);
  const eventCounts: Record<string, number> = {};
  for (const e of events) {
    if (e.type === 'task.progress') continue;
    const key = e.type === 'decision' ? `decision:${(e as unknown as { decision: { decisionType: string } }).decision.decisionType}` : e.type;
    // A step run twice after a crash (its lock lapsed while a second coordinator took it) drops the loser's
    // computation and says so: that record of the disturbance is the one event an undisturbed run lacks.
    if (key === 'decision:stale-verdict') continue;
    eventCounts[key] = (eventCounts[key] ?? 0) + 1;
  }

  return {
    status: run!.status,
    findingIds,
    citedSourceIds: [...new Set(citations.map((c) => c.split('\n')[0]!))].sort(),
    reportSourceIds: [...reportSourceIds].sort(),
    completedTasks: completed.sort(),
    eventCounts,
    counters: run!.counters,
    rounds: run!.rounds.length,
  };
}

export function expectNoDuplicates(values: string[], what: string): void {
  const seen = new Set<string>();
  const dups = values.filter((v) => (seen.has(v) ? true : (seen.add(v), false)));
  expect(dups, `duplicates in ${what}`).toEqual([]);
}

/** A disturbed run must match the undisturbed one exactly: nothing duplicated, nothing missing. */
export function expectSameRun(disturbed: RunFingerprint, baseline: RunFingerprint): void {
  expect(disturbed.status).toBe('done');
  expect(baseline.status).toBe('done');
  expect(disturbed.findingIds.length).toBeGreaterThan(0);
  expect(disturbed).toEqual(baseline);
}

/** Runs `topic` to the end, undisturbed, and returns its fingerprint. */
export async function baselineRun(cluster: ChaosCluster, topic: string, engine: 'simulated' | 'corpus' = 'simulated'): Promise<RunFingerprint> {
  const { id } = await cluster.client.submit({ topic, engine });
  // The corpus engine's first runs index the speeches in every process: 147–155 s for three at once at load
  // average 25 on 2 cores (the simulated engine's: about 2 s).
  expect(await cluster.waitForEnd(id, 240_000)).toBe('done');
  return fingerprint(cluster, id);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
