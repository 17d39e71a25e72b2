import { openPassageStore, type PassageStore, type StoreLocation } from '@orrery/passages';
import { INGEST_QUEUE, type IngestProgress } from '@orrery/protocol';
import { IngestState, queuePrefix, startIngest } from '@orrery/runtime';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Client } from 'pg';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ServiceProcess, startWorkerProcess, waitFor } from '../support/service-processes';
import { dropPrefix, REDIS_URL, redisClient, uniquePrefix } from '../support/test-env';

export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const WORDS = 'river salmon harbour ferry bridge tunnel orchard quarry mill canal lighthouse glacier meadow forge granary'.split(' ');

export interface GeneratedPassage {
  id: string;
  title: string;
  text: string;
}

/** `n` passages in documents of ten, each text distinct (so content hashes differ). */
export function generatedPassages(n: number): GeneratedPassage[] {
  return Array.from({ length: n }, (_, i) => {
    const words = Array.from({ length: 60 }, (_, k) => WORDS[(i * 7 + k * 3 + (k % 5)) % WORDS.length]);
    return { id: `doc-${Math.floor(i / 10)}/p${i % 10}`, title: `Document ${Math.floor(i / 10)}`, text: `Passage ${i} of the test corpus. ${words.join(' ')}.` };
  });
}

export const toJsonl = (passages: GeneratedPassage[]): string => passages.map((p) => JSON.stringify(p)).join('\n') + '\n';

/** Worker processes over one passage store (a SQLite file in a temp dir) and one queue prefix, and a way to start ingests. */
export class IngestCluster {
  readonly prefix: string;
  readonly dir = mkdtempSync(join(tmpdir(), 'orrery-ingest-test-'));
  readonly env: Record<string, string>;
  readonly workers: ServiceProcess[] = [];
  readonly redis: Redis = redisClient();
  readonly state: IngestState;
  readonly queue: Queue;
  private store?: PassageStore;
  readonly location: StoreLocation;

  /** `store: 'postgres'` puts the passages in a schema of their own on the test PostgreSQL server. */
  constructor(name: string, env: Record<string, string> = {}, store: 'sqlite' | 'postgres' = 'sqlite') {
    this.prefix = uniquePrefix(name);
    this.location =
      store === 'postgres' ? { kind: 'postgres', url: TEST_POSTGRES_URL, schema: `t_ingest_${randomBytes(4).toString('hex')}` } : { kind: 'sqlite', file: join(this.dir, 'passages.sqlite') };
    const storeEnv = this.location.kind === 'postgres' ? { CORPUS_STORE: this.location.url, CORPUS_STORE_SCHEMA: this.location.schema } : { CORPUS_STORE: this.location.file };
    this.env = { QUEUE_PREFIX: this.prefix, ...storeEnv, ENGINE: 'corpus', ...env };
    this.state = new IngestState(this.redis, this.prefix);
    this.queue = new Queue(INGEST_QUEUE, { connection: { url: REDIS_URL }, prefix: queuePrefix(this.prefix) });
  }

  file(name: string, content: string): string {
    const path = join(this.dir, name);
    writeFileSync(path, content);
    return path;
  }

  async startWorker(name: string, env: Record<string, string> = {}): Promise<ServiceProcess> {
    const w = await startWorkerProcess({ ...this.env, ...env }, name);
    this.workers.push(w);
    return w;
  }

  ingest(corpus: string, path: string): Promise<string> {
    return startIngest(this.queue, this.state, corpus, { kind: 'jsonl', path, within: [this.dir] }, 3);
  }

  async waitReady(corpus: string, ingestId: string, timeoutMs = 60_000): Promise<IngestProgress> {
    let p: IngestProgress | undefined;
    await waitFor(
      async () => {
        p = await this.state.get(corpus);
        if (p?.status === 'failed') throw new Error(`ingest failed: ${p.error}`);
        return p?.ingestId === ingestId && p.status === 'ready';
      },
      timeoutMs,
      `ingest ${ingestId} of ${corpus} to be ready`,
    );
    return p!;
  }

  /** The store, opened in this process the way the workers open it. */
  passages(): PassageStore {
    this.store ??= openPassageStore(this.location);
    return this.store;
  }

  async stop(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.kill('SIGKILL')));
    await this.store?.close();
    await this.queue.close();
    this.redis.disconnect();
    await dropPrefix(this.prefix);
    rmSync(this.dir, { recursive: true, force: true });
    if (this.location.kind === 'postgres') {
      const pg = new Client({ connectionString: this.location.url });
      await pg.connect();
      await pg.query(`DROP SCHEMA IF EXISTS ${this.location.schema} CASCADE`).finally(() => pg.end());
    }
  }
}
