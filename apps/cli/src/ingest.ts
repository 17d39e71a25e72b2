import type { INestApplicationContext } from '@nestjs/common';
import { openPassageStore, parseCorporaSpec, sourceOf } from '@orrery/engines';
import { INGEST_QUEUE, type IngestProgress } from '@orrery/protocol';
import { IngestState, startIngest } from '@orrery/runtime';
import { loadSubagentConfig, startSubagents } from '@orrery/subagents';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureRedis, type RedisHandle } from './redis/ensure-redis';
import { forTerminal } from './terminal/terminal-text';

const USAGE = `Usage: npm run ingest -- --corpus NAME=PATH [--workers-here]

Ingests a corpus (a JSONL file of {id,text,title?,url?} lines, or a folder of .md/.txt/.html files) into the passage store
(CORPUS_STORE: a SQLite file, default under the temp dir, or postgres://…) through the ingest queue, and prints progress.
Incremental: a second ingest re-indexes only changed passages and removes those that are gone.
Workers consuming the queue (npm run start:worker, with the same REDIS_URL, QUEUE_PREFIX and CORPUS_STORE) do the work;
when none is running, or with --workers-here, a worker runs in this process.`;

const POLL_MS = 500;

function describe(p: IngestProgress): string {
  if (p.status === 'planning') return `${p.corpus}: planning (reading the source, comparing content hashes)`;
  return `${p.corpus}: ${p.status} · ${p.chunksDone}/${p.chunks} chunks · ${p.changed} of ${p.passages} passages to index · ${p.removed} removed`;
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { corpus: { type: 'string' }, 'workers-here': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help || !values.corpus) {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const [spec] = parseCorporaSpec(values.corpus);
  if (!spec) throw new Error('--corpus must look like NAME=PATH');
  // The operator's own path: its reads stay within it (symlinks resolved), like any request's within its folders.
  const path = resolve(spec.path);
  const source = sourceOf(path, [path]);
  const prefix = process.env.QUEUE_PREFIX ?? 'orrery';

  let redisHandle: RedisHandle | undefined;
  let worker: INestApplicationContext | undefined;
  let redis: Redis | undefined;
  let queue: Queue | undefined;
  try {
    redisHandle = await ensureRedis();
    process.env.REDIS_URL = redisHandle.url;
    redis = new Redis(redisHandle.url, { maxRetriesPerRequest: 3 });
    queue = new Queue(INGEST_QUEUE, { connection: { url: redisHandle.url }, prefix });
    const state = new IngestState(redis, prefix);
    const workers = await queue.getWorkersCount();
    if (values['workers-here'] || workers === 0) {
      process.stderr.write(`[orrery] ${workers === 0 ? 'no ingest worker is running; ' : ''}starting one in this process\n`);
      worker = await startSubagents({ logger: ['error', 'warn'] });
    } else process.stderr.write(`[orrery] ${workers} worker(s) consume the ingest queue\n`);

    const started = Date.now();
    const ingestId = await startIngest(queue, state, spec.name, source, loadSubagentConfig().INGEST_ATTEMPTS);
    process.stderr.write(`[orrery] ingest ${ingestId} of ${spec.name} from ${source.path} (${source.kind})\n`);
    let last = '';
    let progress: IngestProgress | undefined;
    for (;;) {
      progress = await state.get(spec.name);
      if (!progress || progress.ingestId !== ingestId) throw new Error(`the ingest of ${spec.name} was replaced by another one (${progress?.ingestId ?? 'none'})`);
      const line = describe(progress);
      if (line !== last) process.stderr.write(forTerminal(`[orrery] ${line}\n`));
      last = line;
      if (progress.status === 'ready' || progress.status === 'failed') break;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
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
    redis?.disconnect();
    await redisHandle?.stop().catch(() => undefined);
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(forTerminal(`orrery: ${err instanceof Error ? err.message : String(err)}\n`));
    process.exit(1);
  },
);
