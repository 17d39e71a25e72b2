/**
 * Redis past one node, for the tests and the benchmarks: a Redis Cluster (masters with a replica each) and a Sentinel-managed master
 * with its replica, all real redis-server processes on free loopback ports in a temporary directory, torn down after.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';

const run = promisify(execFile);

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** A loopback port that is free, and (for a cluster node) whose bus port, port + 10000, is free too. */
async function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}
async function freePorts(n: number, withBus: boolean): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < n) {
    const p = 20_000 + Math.floor(Math.random() * 30_000);
    if (ports.includes(p) || ports.includes(p + 10_000)) continue;
    if ((await isFree(p)) && (!withBus || (await isFree(p + 10_000)))) ports.push(p);
  }
  return ports;
}

/** One redis-server process; stop() SIGKILLs it (with appendfsync always, nothing it acknowledged is lost on disk). */
export class RedisNode {
  child: ChildProcess | undefined;
  constructor(
    readonly port: number,
    readonly dir: string,
    private readonly args: string[],
  ) {}

  async start(): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    const child = spawn('redis-server', this.args, { stdio: 'ignore', cwd: this.dir });
    this.child = child;
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`redis-server on ${this.port} exited with ${child.exitCode}`);
        const c = new Redis({ port: this.port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
        c.on('error', () => undefined);
        try {
          await c.connect();
          return (await c.ping()) === 'PONG';
        } catch {
          return false;
        } finally {
          c.disconnect();
        }
      },
      15_000,
      `redis-server on ${this.port}`,
    );
  }

  get alive(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  async stop(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || !this.alive) return;
    await new Promise<void>((res) => {
      child.once('exit', () => res());
      child.kill(signal);
    });
  }

  client(): Redis {
    const c = new Redis({ port: this.port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
    c.on('error', () => undefined);
    return c;
  }
}

const durable = ['--appendonly', 'yes', '--appendfsync', 'always', '--save', '', '--maxmemory-policy', 'noeviction'];

/** A Redis Cluster of `masters` masters, each with one replica, created with `redis-cli --cluster create`. */
export class OwnedRedisCluster {
  private constructor(
    readonly nodes: RedisNode[],
    private readonly dir: string,
  ) {}

  /** What every process is given: REDIS_CLUSTER_NODES. */
  get env(): Record<string, string> {
    return { REDIS_CLUSTER_NODES: this.nodes.map((n) => `127.0.0.1:${n.port}`).join(',') };
  }

  static async start(masters = 3): Promise<OwnedRedisCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'orrery-redis-cluster-'));
    const ports = await freePorts(masters * 2, true);
    const nodes = ports.map(
      (port) =>
        new RedisNode(port, join(dir, String(port)), [
          '--port', String(port), '--bind', '127.0.0.1', ...durable,
          '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf',
          // A dead master's replica takes over about two seconds after it stops answering.
          '--cluster-node-timeout', '2000',
        ]),
    );
    const cluster = new OwnedRedisCluster(nodes, dir);
    await Promise.all(nodes.map((n) => n.start()));
    await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'], { timeout: 60_000 });
    await cluster.waitHealthy();
    return cluster;
  }

  /** Every live node says the cluster is ok, and each of the masters has a replica attached. */
  async waitHealthy(timeoutMs = 60_000): Promise<void> {
    await waitFor(
      async () => {
        for (const n of this.nodes.filter((x) => x.alive)) {
          const c = n.client();
          try {
            const info = String(await c.call('CLUSTER', 'INFO'));
            if (!info.includes('cluster_state:ok')) return false;
          } catch {
            return false;
          } finally {
            c.disconnect();
          }
        }
        return true;
      },
      timeoutMs,
      'the Redis Cluster to be ok',
    );
  }

  /** Resolves once no slot is served by a dead master any more: a replica has taken each dead master's place. */
  async waitFailover(timeoutMs = 60_000): Promise<void> {
    await waitFor(
      async () => {
        const c = this.nodes.find((n) => n.alive)!.client();
        try {
          const ranges = (await c.call('CLUSTER', 'SLOTS')) as [number, number, [string, number, string]][];
          return ranges.every(([, , [, port]]) => this.nodes.find((n) => n.port === Number(port))?.alive);
        } catch {
          return false;
        } finally {
          c.disconnect();
        }
      },
      timeoutMs,
      'a replica to take over the dead master',
    );
    await this.waitHealthy(timeoutMs);
  }

  /** The node serving `key`'s slot as master now. */
  async masterOf(key: string): Promise<RedisNode> {
    const c = this.nodes.find((n) => n.alive)!.client();
    try {
      const slot = Number(await c.call('CLUSTER', 'KEYSLOT', key));
      const ranges = (await c.call('CLUSTER', 'SLOTS')) as [number, number, [string, number, string]][];
      const port = ranges.find(([from, to]) => slot >= from && slot <= to)![2][1];
      return this.nodes.find((n) => n.port === Number(port))!;
    } finally {
      c.disconnect();
    }
  }

  async destroy(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.stop()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A master, its replica, and three sentinels watching it under the name `orrery` (quorum 2). */
export class OwnedSentinel {
  static readonly MASTER = 'orrery';
  private constructor(
    readonly master: RedisNode,
    readonly replica: RedisNode,
    readonly sentinels: RedisNode[],
    private readonly dir: string,
  ) {}

  get env(): Record<string, string> {
    return { REDIS_SENTINELS: this.sentinels.map((s) => `127.0.0.1:${s.port}`).join(','), REDIS_SENTINEL_MASTER: OwnedSentinel.MASTER };
  }

  static async start(): Promise<OwnedSentinel> {
    const dir = mkdtempSync(join(tmpdir(), 'orrery-redis-sentinel-'));
    const [m, r, ...s] = await freePorts(5, false);
    const base = (port: number) => ['--port', String(port), '--bind', '127.0.0.1', ...durable];
    const master = new RedisNode(m!, join(dir, 'master'), base(m!));
    const replica = new RedisNode(r!, join(dir, 'replica'), [...base(r!), '--replicaof', '127.0.0.1', String(m)]);
    const sentinels = s.map((port) => {
      const conf = join(dir, `sentinel-${port}`, 'sentinel.conf');
      mkdirSync(join(dir, `sentinel-${port}`), { recursive: true });
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `sentinel monitor ${OwnedSentinel.MASTER} 127.0.0.1 ${m} 2`,
          `sentinel down-after-milliseconds ${OwnedSentinel.MASTER} 1000`,
          `sentinel failover-timeout ${OwnedSentinel.MASTER} 5000`,
          '',
        ].join('\n'),
      );
      return new RedisNode(port, join(dir, `sentinel-${port}`), [conf, '--sentinel']);
    });
    await master.start();
    await replica.start();
    await Promise.all(sentinels.map((x) => x.start()));
    const sentinel = new OwnedSentinel(master, replica, sentinels, dir);
    await waitFor(async () => (await sentinel.replicasSeen()) >= 1, 30_000, 'the sentinels to see the replica');
    return sentinel;
  }

  private async replicasSeen(): Promise<number> {
    const c = this.sentinels[0]!.client();
    try {
      const replicas = (await c.call('SENTINEL', 'REPLICAS', OwnedSentinel.MASTER)) as unknown[];
      return replicas.length;
    } finally {
      c.disconnect();
    }
  }

  /** The port of the master the sentinels name now. */
  async masterPort(): Promise<number> {
    const c = this.sentinels[0]!.client();
    try {
      const [, port] = (await c.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', OwnedSentinel.MASTER)) as [string, string];
      return Number(port);
    } finally {
      c.disconnect();
    }
  }

  /** Promotes the replica (SENTINEL FAILOVER); resolves once the sentinels name it master. */
  async failover(timeoutMs = 30_000): Promise<void> {
    const before = await this.masterPort();
    const c = this.sentinels[0]!.client();
    try {
      await c.call('SENTINEL', 'FAILOVER', OwnedSentinel.MASTER);
    } finally {
      c.disconnect();
    }
    await waitFor(async () => (await this.masterPort()) !== before, timeoutMs, 'the sentinels to promote the replica');
  }

  /**
   * SIGKILLs whichever node is master now (no SENTINEL FAILOVER: the sentinels must notice, after
   * down-after-milliseconds, agree, and elect the replica); resolves once they name the other node.
   */
  async killMaster(timeoutMs = 60_000): Promise<void> {
    const before = await this.masterPort();
    await [this.master, this.replica].find((n) => n.port === before)!.stop('SIGKILL');
    await waitFor(async () => (await this.masterPort()) !== before, timeoutMs, 'the sentinels to elect the replica');
  }

  async destroy(): Promise<void> {
    await Promise.all([...this.sentinels, this.replica, this.master].map((n) => n.stop()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
