import { openPassageStore, type PassageStore } from '@orrery/passages';
import { INGEST_QUEUE } from '@orrery/protocol';
import { ingestJobIds, queuePrefix } from '@orrery/runtime';
import { Queue } from 'bullmq';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { dropPrefix, REDIS_URL, ROOT, uniquePrefix } from '../support/test-env';
import { generatedPassages, toJsonl } from './ingest-support';

const run = promisify(execFile);
const CLI_RESEARCH = resolve(ROOT, 'apps', 'cli', 'dist', 'research.js');

describe('npm run research -- "…" --corpus PATH', () => {
  const prefix = uniquePrefix('cli-corpus');
  const dir = mkdtempSync(join(tmpdir(), 'orrery-cli-corpus-'));
  const dataDir = join(dir, 'data');
  const path = join(dir, 'notes.jsonl');
  writeFileSync(path, toJsonl(generatedPassages(120)));
  const queue = new Queue(INGEST_QUEUE, { connection: { url: REDIS_URL }, prefix: queuePrefix(prefix) });
  let store: PassageStore | undefined;
  const env = { ...process.env, REDIS_URL, QUEUE_PREFIX: prefix, ORRERY_DATA_DIR: dataDir, ENGINE: 'corpus', ORRERY_URL: '', CORPUS_STORE: '', CORPORA: '' };

  afterAll(async () => {
    await store?.close();
    await queue.close();
    await dropPrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
  });

  const research = async () => {
    const { stdout, stderr } = await run(process.execPath, [CLI_RESEARCH, 'What do the documents say about salmon and the harbour?', '--json', '--corpus', path], { env, maxBuffer: 1 << 26 });
    const [, ingestId, corpus] = /ingest (\S+) of (local-[0-9a-f]{12})/.exec(stderr) ?? [];
    return { report: JSON.parse(stdout) as { sources: { id: string }[] }, stderr, ingestId: ingestId!, corpus: corpus! };
  };

  it('ingests the file into the deployment’s own store and answers from it; asked again, the unchanged file is not read', { timeout: 240_000 }, async () => {
    const first = await research();
    expect(first.corpus).toBeDefined();
    expect(first.stderr).toMatch(/120 of 120 passages to index/);
    expect(first.report.sources.length).toBeGreaterThan(0);
    expect(first.report.sources.every((s) => /^doc-\d+\/p\d$/.test(s.id))).toBe(true);
    // The deployment's data folder, named for its QUEUE_PREFIX, holds the store.
    store = openPassageStore({ kind: 'sqlite', file: join(dataDir, prefix, 'passages.sqlite') });
    expect((await store.stats(first.corpus)).passages).toBe(120);
    expect(await store.sourceFingerprint(first.corpus)).not.toBeNull();

    const again = await research();
    expect(again.corpus).toBe(first.corpus);
    expect((await queue.getJob(ingestJobIds.plan(again.corpus, again.ingestId)))!.returnvalue).toMatchObject({ unchanged: true, passages: 120 });
    expect(again.report.sources.map((s) => s.id)).toEqual(first.report.sources.map((s) => s.id));
  });
});
