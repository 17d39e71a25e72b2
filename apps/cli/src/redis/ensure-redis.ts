import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectRedis, describeRedisLocation, freePort, readRedisLocation, redisAnswers, type RedisLocation } from '@orrery/runtime';

export interface RedisHandle {
  /** Where the CLI's connections go: `connectRedis` and `bullConnection` take it, as the services' configs do. */
  location: RedisLocation;
  /** Set when this process started its own redis-server. */
  owned: boolean;
  stop(): Promise<void>;
}

export class RedisNotFoundError extends Error {
  constructor(tried: string[]) {
    super(
      `No Redis answered at ${tried.join(' or ')}, and no redis-server is installed to start one.\n` +
        'Get Redis with one of:\n  docker compose up -d redis\n  sudo apt install redis-server   (or: brew install redis)\n' +
        'or point REDIS_URL at a running Redis.',
    );
  }
}

/**
 * REDIS_CLUSTER_NODES or REDIS_SENTINELS (with REDIS_SENTINEL_MASTER) as the services read them; else REDIS_URL, then
 * localhost:6379, then a redis-server of our own on a free port in a temporary directory.
 */
export async function ensureRedis(env: NodeJS.ProcessEnv = process.env): Promise<RedisHandle> {
  const given = readRedisLocation(env);
  if (given.REDIS_CLUSTER_NODES.length || given.REDIS_SENTINELS.length) {
    if (!(await locationAnswers(given))) throw new Error(`${describeRedisLocation(given)} does not answer; start it or fix the Redis settings.`);
    return { location: given, owned: false, stop: async () => undefined };
  }
  const at = (url: string): RedisLocation => ({ ...given, REDIS_URL: url });
  const candidates = env.REDIS_URL ? [env.REDIS_URL] : ['redis://127.0.0.1:6379'];
  for (const url of candidates) {
    if (await redisAnswers(url)) return { location: at(url), owned: false, stop: async () => undefined };
  }
  if (env.REDIS_URL) throw new Error(`REDIS_URL=${env.REDIS_URL} does not answer; start that Redis or unset REDIS_URL.`);
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status !== 0) throw new RedisNotFoundError(candidates);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'orrery-redis-'));
  // A process group of its own: Ctrl-C in the terminal reaches the CLI, which still needs Redis to cancel its run.
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: 'ignore', detached: true });
  // However this process ends, its Redis ends with it.
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 50; i++) {
    if (await redisAnswers(url, 500)) {
      return {
        location: at(url),
        owned: true,
        stop: async () => {
          process.off('exit', killOnExit);
          child.kill('SIGTERM');
          await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  process.off('exit', killOnExit);
  throw new Error(`started redis-server on port ${port}, but it never answered`);
}

/** A Cluster or a Sentinel-managed master answers PING (a Cluster client only once it has found its slots). */
async function locationAnswers(location: RedisLocation, timeoutMs = 5000): Promise<boolean> {
  const client = connectRedis(location, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 1, enableOfflineQueue: true });
  client.on('error', () => undefined);
  let timer: NodeJS.Timeout | undefined;
  try {
    const deadline = new Promise<false>((r) => (timer = setTimeout(() => r(false), timeoutMs)));
    return await Promise.race([client.connect().then(async () => (await client.ping()) === 'PONG'), deadline]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}
