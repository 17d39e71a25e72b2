import { KEPT_PARTITION, partitionName } from '@orrery/corpus-engine';
import { ingestJobIds } from '@orrery/runtime';
import type { Job } from 'bullmq';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/service-processes';
import { generatedPassages, IngestCluster, toJsonl } from './ingest-support';
import { storedHashes } from '../support/stored-hashes';

describe.each(['sqlite', 'postgres'] as const)('ingest through the ingest queue into the %s store is incremental', (store) => {
  const cluster = new IngestCluster(`ingest-incr-${store}`, { INGEST_CHUNK_PASSAGES: '40', INGEST_MAX_FILE_BYTES: '200000', INGEST_MAX_RECORD_BYTES: '2000' }, store);
  beforeAll(async () => {
    await cluster.startWorker('ingest-worker-1');
    await cluster.startWorker('ingest-worker-2');
  });
  afterAll(() => cluster.stop());

  it('indexes every passage, then re-indexes only a changed one and drops a removed one', { timeout: 90_000 }, async () => {
    const passages = generatedPassages(200);
    const path = cluster.file('corpus.jsonl', toJsonl(passages));
    const first = await cluster.waitReady('gen', await cluster.ingest('gen', path));
    expect(first).toMatchObject({ passages: 200, changed: 200, removed: 0, chunks: 5, chunksDone: 5 });
    const store = cluster.passages();
    expect((await store.stats('gen')).passages).toBe(200);
    const hashesBefore = await storedHashes(store, 'gen');
    // The ingest is ready once its structure job has kept the corpus's partition for the generation it left.
    const partition = async () => (await store.structure('gen', await store.generation('gen')))?.partitions[partitionName(KEPT_PARTITION)];
    expect(Object.keys((await partition()) ?? {})).toHaveLength(200);

    // Same file again: nothing to index.
    const again = await cluster.waitReady('gen', await cluster.ingest('gen', path));
    expect(again).toMatchObject({ passages: 200, changed: 0, removed: 0, chunks: 0 });

    const edited = passages.filter((p) => p.id !== 'doc-3/p4').map((p) => (p.id === 'doc-7/p2' ? { ...p, text: `${p.text} An added sentence about a drawbridge.` } : p));
    cluster.file('corpus.jsonl', toJsonl(edited));
    const second = await cluster.waitReady('gen', await cluster.ingest('gen', path));
    expect(second).toMatchObject({ passages: 199, changed: 1, removed: 1, chunks: 1, chunksDone: 1 });

    expect((await store.stats('gen')).passages).toBe(199);
    expect(Object.keys((await partition()) ?? {})).toHaveLength(199);
    expect(await store.get('gen', ['doc-3/p4'])).toEqual([]);
    const [changed] = await store.get('gen', ['doc-7/p2']);
    expect(changed!.text).toContain('drawbridge');
    const hashesAfter = await storedHashes(store, 'gen');
    const differing = [...hashesAfter].filter(([id, h]) => hashesBefore.get(id) !== h).map(([id]) => id);
    expect(differing).toEqual(['doc-7/p2']);
    expect((await store.search('gen', 'drawbridge', { limit: 5 })).map((h) => h.id)).toEqual(['doc-7/p2']);
  });

  it('reads an unchanged source (same size, mtime, ctime, inode) no more; any write to it, even one that keeps size and mtime, is read', { timeout: 90_000 }, async () => {
    const passages = generatedPassages(120);
    const path = cluster.file('fingerprinted.jsonl', toJsonl(passages));
    // The plan job marks the corpus ready before it returns: its result is read once it has completed.
    const planOf = async (ingestId: string) => {
      let job: Job | undefined;
      await waitFor(async () => (job = await cluster.queue.getJob(ingestJobIds.plan('fp', ingestId)))?.finishedOn !== undefined, 20_000, 'the plan job to complete');
      return job!.returnvalue;
    };
    const first = await cluster.ingest('fp', path);
    expect(await cluster.waitReady('fp', first)).toMatchObject({ passages: 120, changed: 120 });
    expect(await planOf(first)).not.toHaveProperty('unchanged');

    const again = await cluster.ingest('fp', path);
    expect(await cluster.waitReady('fp', again)).toMatchObject({ passages: 120, changed: 0, removed: 0, chunks: 0 });
    expect(await planOf(again)).toMatchObject({ unchanged: true, passages: 120 });

    // One letter changed in place, the file's size and mtime put back: only its ctime (and content) tell.
    const { mtime, atime } = statSync(path);
    const text = toJsonl(passages).replace('Passage 7 of', 'Passage 7 oF');
    writeFileSync(path, text);
    utimesSync(path, atime, mtime);
    const edited = await cluster.ingest('fp', path);
    expect(await cluster.waitReady('fp', edited)).toMatchObject({ passages: 120, changed: 1 });
    expect(await planOf(edited)).not.toHaveProperty('unchanged');
    const settled = await cluster.ingest('fp', path);
    await cluster.waitReady('fp', settled);
    expect(await planOf(settled)).toMatchObject({ unchanged: true });

    // A corpus dropped from the store is read again in full, fingerprint or not.
    await cluster.passages().drop('fp');
    expect(await cluster.waitReady('fp', await cluster.ingest('fp', path))).toMatchObject({ passages: 120, changed: 120 });
  });

  it('stores a passage whose text holds a NUL character (PostgreSQL refuses NUL in text), without it', { timeout: 60_000 }, async () => {
    const passages = generatedPassages(3).map((p, i) => (i === 1 ? { ...p, text: `before\u0000after ${p.text}` } : p));
    await cluster.waitReady('nul', await cluster.ingest('nul', cluster.file('nul.jsonl', toJsonl(passages))));
    const [stored] = await cluster.passages().get('nul', [passages[1]!.id]);
    expect(stored!.text.startsWith('beforeafter ')).toBe(true);
  });

  it('a source with a bad line fails its ingest at once, naming the line, and is not retried', { timeout: 60_000 }, async () => {
    const lines = toJsonl(generatedPassages(5)).split('\n');
    lines.splice(2, 0, '{"id": "broken", "text": ');
    const path = cluster.file('broken.jsonl', lines.join('\n'));
    const ingestId = await cluster.ingest('broken', path);
    await waitFor(async () => (await cluster.state.get('broken'))?.status === 'failed', 30_000, 'the ingest to fail');
    expect((await cluster.state.get('broken'))!.error).toMatch(/^plan: line 3: not valid JSON/);
    // The job writes the failed state itself; BullMQ counts the attempt as it moves the job to failed, just after.
    await waitFor(async () => (await cluster.queue.getJobState(ingestJobIds.plan('broken', ingestId))) === 'failed', 30_000, 'the plan job to fail');
    const plan = await cluster.queue.getJob(ingestJobIds.plan('broken', ingestId));
    expect(plan!.attemptsMade).toBe(1);
  });

  it('a bad line holding emoji fails its ingest, and the corpus can be ingested again once it is fixed', { timeout: 60_000 }, async () => {
    // JSON.parse quotes the line in its message, cut through an emoji: half of it is a lone surrogate.
    const good = toJsonl(generatedPassages(3));
    const path = cluster.file('emoji.jsonl', `${good}x${'😀'.repeat(20)}\n`);
    await cluster.ingest('emoji', path);
    await waitFor(async () => (await cluster.state.get('emoji'))?.status === 'failed', 30_000, 'the ingest to fail');
    expect((await cluster.state.get('emoji'))!.error).toMatch(/^plan: line 4: not valid JSON/);
    const fixed = cluster.file('emoji.jsonl', good);
    expect((await cluster.waitReady('emoji', await cluster.ingest('emoji', fixed))).passages).toBe(3);
  });

  const failedWith = async (corpus: string, path: string): Promise<string> => {
    await cluster.ingest(corpus, path);
    await waitFor(async () => (await cluster.state.get(corpus))?.status === 'failed', 30_000, `the ingest of ${corpus} to fail`);
    return (await cluster.state.get(corpus))!.error!;
  };

  it('what any key reads of a failed ingest names the line and the problem, never the path or the text', { timeout: 60_000 }, async () => {
    const path = cluster.file('environ.jsonl', `${toJsonl(generatedPassages(2))}PORT=39101\0SECRET=hunter2\n`);
    const error = await failedWith('environ', path);
    expect(error).toBe('plan: line 3: not valid JSON');
    expect(error).not.toContain(cluster.dir);
  });

  it('reads only regular files within the folders the ingest names, under the size caps', { timeout: 90_000 }, async () => {
    // Outside the folders (cluster.dir): a path there, or a symlink inside that leads there.
    const outside = mkdtempSync(join(tmpdir(), 'orrery-outside-'));
    try {
      const secret = join(outside, 'secret.jsonl');
      writeFileSync(secret, toJsonl(generatedPassages(2)));
      expect(await failedWith('outside', secret)).toBe('plan: the source: lies outside the folders ingest may read');
      const link = join(cluster.dir, 'link.jsonl');
      symlinkSync(secret, link);
      expect(await failedWith('link', link)).toBe('plan: the source: lies outside the folders ingest may read');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
    // A FIFO would hold the plan job open for a writer that never comes.
    const fifo = join(cluster.dir, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    expect(await failedWith('fifo', fifo)).toMatch(/^plan: the source: is not a regular file/);
    expect(await failedWith('big', cluster.file('big.jsonl', toJsonl(generatedPassages(600))))).toBe('plan: the source: is larger than INGEST_MAX_FILE_BYTES (200000 bytes)');
    const long = cluster.file('long.jsonl', `${toJsonl(generatedPassages(2))}${JSON.stringify({ id: 'long', text: 'x'.repeat(5000) })}\n`);
    expect(await failedWith('long', long)).toBe('plan: line 3: is longer than INGEST_MAX_RECORD_BYTES (2000 bytes)');
    // The workers survived all of it and still ingest.
    expect((await cluster.waitReady('after', await cluster.ingest('after', cluster.file('after.jsonl', toJsonl(generatedPassages(5)))))).passages).toBe(5);
  });
});
