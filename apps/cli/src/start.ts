import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { describeRedisLocation, serviceProcessEnv } from '@orrery/runtime';
import { ensureRedis } from './redis/ensure-redis';

/** `npm start`: the coordinator plus WORKERS subagent processes, restarted if they die, stopped together. */
async function main(): Promise<void> {
  const workers = Math.max(1, Number(process.env.WORKERS ?? 2) || 2);
  const redis = await ensureRedis();
  const env = serviceProcessEnv({ ...process.env, REDIS_URL: redis.location.REDIS_URL });
  const apps = join(__dirname, '..', '..');
  const children = new Set<ChildProcess>();
  let stopping = false;

  const launch = (name: string, script: string, extra: Record<string, string> = {}): void => {
    const child = spawn(process.execPath, [script], { env: { ...env, ...extra }, stdio: 'inherit' });
    children.add(child);
    child.on('exit', (code, signal) => {
      children.delete(child);
      if (stopping) return;
      console.error(`[orrery] ${name} exited (${signal ?? code}); restarting in 1 s`);
      setTimeout(() => launch(name, script, extra), 1000).unref();
    });
  };

  console.error(`[orrery] Redis: ${describeRedisLocation(redis.location)}; starting the coordinator and ${workers} worker process(es)`);
  launch('coordinator', join(apps, 'coordinator', 'dist', 'main.js'));
  for (let i = 1; i <= workers; i++) launch(`worker ${i}`, join(apps, 'subagents', 'dist', 'main.js'), { WORKER_NAME: `worker-${i}` });

  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.error(`[orrery] ${signal}: stopping ${children.size} processes`);
    const exits = [...children].map((c) => new Promise((r) => c.once('exit', r)));
    for (const c of children) c.kill('SIGTERM');
    await Promise.race([Promise.all(exits), new Promise((r) => setTimeout(r, 30_000))]);
    for (const c of children) c.kill('SIGKILL');
    await redis.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  console.error(`orrery: ${err instanceof Error ? err.message : err}`);
  process.exit(1);
});
