import type { INestApplicationContext } from '@nestjs/common';
import { CorpusRegistry, parseCorporaSpec } from '@orrery/corpus-engine';
import { openPassageStore } from '@orrery/passages';
import { sourceOf } from '@orrery/passages/ingest';
import { INGEST_QUEUE, IngestCorpusNameSchema, loadQueuePrefix } from '@orrery/protocol';
import { bullConnection, closeBullConnection, connectRedis, IngestState, queuePrefix, removeCorpus } from '@orrery/runtime';
import { loadSubagentConfig, startSubagents } from '@orrery/subagents';
import { Queue } from 'bullmq';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ingestAndWait } from './ingest/ingest-and-wait';
import { ensureRedis, type RedisHandle } from './redis/ensure-redis';
import { forTerminal } from './terminal/terminal-text';

const USAGE = `Usage: npm run ingest -- --corpus NAME=PATH [--workers-here]
       npm run ingest -- --remove NAME

Ingests a corpus (a JSONL file of {id,text,title?,url?} lines, or a folder of .md/.txt/.html files) into the passage store
(CORPUS_STORE: a SQLite file, default the deployment's own under ~/.local/share/orrery/QUEUE_PREFIX, or postgres://…)
through the ingest queue, and prints progress. Incremental: a second ingest re-indexes only changed passages and removes
those that are gone. --remove deletes an ingested corpus (refused while it ingests).
Redis is where the services find it (REDIS_URL, REDIS_CLUSTER_NODES, or REDIS_SENTINELS with REDIS_SENTINEL_MASTER).
Workers consuming the queue (npm run start:worker, with the same Redis settings, QUEUE_PREFIX and CORPUS_STORE) do the work;
when none is running, or with --workers-here, a worker runs in this process.`;

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { corpus: { type: 'string' }, remove: { type: 'string' }, 'workers-here': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help || !values.corpus === !values.remove) {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  if (values.remove) return remove(values.remove);
  const [spec] = parseCorporaSpec(values.corpus);
  if (!spec) throw new Error('--corpus must look like NAME=PATH');
  // The operator's own path: its reads stay within it (symlinks resolved), like any request's within its folders.
  const path = resolve(spec.path);
  const source = sourceOf(path, [path]);
  const prefix = loadQueuePrefix();

  let redisHandle: RedisHandle | undefined;
  let worker: INestApplicationContext | undefined;
  let queue: Queue | undefined;
  let connection: ReturnType<typeof bullConnection> | undefined;
  try {
    redisHandle = await ensureRedis();
    // A worker started here reads its Redis from the environment, as the services do.
    process.env.REDIS_URL = redisHandle.location.REDIS_URL;
    connection = bullConnection(redisHandle.location);
    queue = new Queue(INGEST_QUEUE, { connection, prefix: queuePrefix(prefix) });
    const workers = await queue.getWorkersCount();
    if (values['workers-here'] || workers === 0) {
      process.stderr.write(`[orrery] ${workers === 0 ? 'no ingest worker is running; ' : ''}starting one in this process\n`);
      worker = await startSubagents({ logger: ['error', 'warn'] });
    } else process.stderr.write(`[orrery] ${workers} worker(s) consume the ingest queue\n`);

    const started = Date.now();
    const log = (line: string) => process.stderr.write(line);
    const known = await knownCorpora();
    const { progress } = await ingestAndWait({ location: redisHandle.location, prefix, corpus: spec.name, source, attempts: loadSubagentConfig().INGEST_ATTEMPTS, known, log });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (progress.status === 'failed') {
      process.stderr.write(forTerminal(`[orrery] ingest failed after ${seconds} s: ${progress.error ?? 'no reason recorded'}\n`));
      return 1;
    }
    const store = openPassageStore();
    const stats = await store.stats(spec.name).finally(() => store.close());
    process.stdout.write(`${spec.name}: ${stats.passages} passages in ${stats.documents} documents; ingested in ${seconds} s (${progress.changed} indexed, ${progress.removed} removed)\n`);
    return 0;
  } finally {
    await worker?.close().catch(() => undefined);
    await queue?.close().catch(() => undefined);
    if (connection) closeBullConnection(connection);
    await redisHandle?.stop().catch(() => undefined);
  }
}

/** The corpora a request may name here: the configured ones and those with passages in this deployment's store. */
async function knownCorpora(): Promise<string[]> {
  const store = openPassageStore();
  try {
    return await new CorpusRegistry({ corpora: process.env.CORPORA, store }).researchable();
  } finally {
    await store.close().catch(() => undefined);
  }
}

/** --remove NAME: the same removal as DELETE /v1/corpora/:name, against this deployment's store and ingest state. */
async function remove(name: string): Promise<number> {
  const parsed = IngestCorpusNameSchema.safeParse(name);
  if (!parsed.success) throw new Error(`--remove: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  const prefix = loadQueuePrefix();
  const redisHandle = await ensureRedis();
  const redis = connectRedis(redisHandle.location, { maxRetriesPerRequest: 3 });
  const store = openPassageStore();
  try {
    const registry = new CorpusRegistry({ corpora: process.env.CORPORA, store });
    const removed = await removeCorpus({ drop: (corpus) => registry.dropStored(corpus) }, new IngestState(redis, prefix), name);
    if (!removed) {
      process.stderr.write(forTerminal(`orrery: corpus ${name} was never ingested\n`));
      return 1;
    }
    process.stdout.write(forTerminal(`${name}: removed\n`));
    return 0;
  } finally {
    await store.close().catch(() => undefined);
    redis.disconnect();
    await redisHandle.stop().catch(() => undefined);
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(forTerminal(`orrery: ${err instanceof Error ? err.message : String(err)}\n`));
    process.exit(1);
  },
);
