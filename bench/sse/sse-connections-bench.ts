/**
 * `npm run bench:sse -- [--streams 200] [--root <checkout>]`: the Redis connections one coordinator holds while it
 * serves N live SSE streams (one per run; no workers, so every run stays live), read from Redis's CLIENT LIST under
 * an ACL user only this coordinator logs in as, so that other processes on the same Redis do not count.
 * `--root` runs the coordinator of another built checkout (the baseline), with the same measurement.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { dropPrefix, freePort, redisAnswers } from '@orrery/runtime';
import { Redis } from 'ioredis';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { streams: { type: 'string', default: '200' }, root: { type: 'string' } } });
  const streams = Number(values.streams);
  const root = resolve(values.root ?? resolve(__dirname, '..', '..', '..'));
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (!(await redisAnswers(redisUrl))) throw new Error(`Redis is not reachable at ${redisUrl}`);
  const admin = new Redis(redisUrl);
  const user = `bench-sse-${randomBytes(3).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  await admin.call('ACL', 'SETUSER', user, 'on', `>${password}`, '~*', '&*', '+@all');
  const url = new URL(redisUrl);
  url.username = user;
  url.password = password;
  const connections = async () => String(await admin.call('CLIENT', 'LIST')).split('\n').filter((l) => l.includes(` user=${user} `)).length;

  const prefix = `bench-sse-${process.pid}`;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const coordinator: ChildProcess = spawn(process.execPath, [resolve(root, 'apps/coordinator/dist/main.js')], {
    env: { PATH: process.env.PATH ?? '', REDIS_URL: url.toString(), QUEUE_PREFIX: prefix, PORT: String(port), ENGINE: 'simulated', API_KEYS: '', NO_COLOR: '1' },
    stdio: 'ignore',
  });
  const aborts: AbortController[] = [];
  try {
    for (let i = 0; i < 200 && !(await fetch(`${base}/healthz`).then((r) => r.ok, () => false)); i++) await sleep(100);
    const ids: string[] = [];
    for (let i = 0; i < streams; i++) {
      const res = await fetch(`${base}/v1/research`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ topic: `live stream number ${i}`, engine: 'simulated' }) });
      if (res.status !== 202) throw new Error(`POST /v1/research: ${res.status} ${await res.text()}`);
      ids.push(((await res.json()) as { id: string }).id);
    }
    await sleep(1000);
    const idle = await connections();
    let open = 0;
    for (const id of ids) {
      const ctl = new AbortController();
      aborts.push(ctl);
      const res = await fetch(`${base}/v1/research/${id}/events`, { signal: ctl.signal });
      if (res.status === 200) open++;
      void res.body?.pipeTo(new WritableStream()).catch(() => undefined);
    }
    await sleep(2000);
    const live = await connections();
    for (const a of aborts) a.abort();
    await sleep(3000);
    const closed = await connections();
    console.log(JSON.stringify({ root, streams: open, connections: { beforeStreams: idle, with200LiveStreams: live, afterClosing: closed, perStream: (live - idle) / Math.max(1, open) } }));
  } finally {
    for (const a of aborts) a.abort();
    coordinator.kill('SIGTERM');
    await new Promise((r) => coordinator.once('exit', r));
    await admin.call('ACL', 'DELUSER', user).catch(() => undefined);
    admin.disconnect();
    await dropPrefix(redisUrl, prefix);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
