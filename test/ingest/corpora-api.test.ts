import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, startCoordinatorProcess, waitFor } from '../support/service-processes';
import { execFile } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { newApiKey, REDIS_URL, ROOT } from '../support/test-env';
import { generatedPassages, IngestCluster, toJsonl } from './ingest-support';

const run = promisify(execFile);
const CLI_INGEST = resolve(ROOT, 'apps', 'cli', 'dist', 'ingest.js');

describe('POST /v1/corpora and research on a corpus still ingesting', () => {
  const cluster = new IngestCluster('ingest-api');
  const user = newApiKey();
  const admin = newApiKey();
  let coordinator: ServiceProcess & { url: string };
  const path = cluster.file('docs.jsonl', toJsonl(generatedPassages(300)));

  const call = (method: string, route: string, key: string, body?: unknown) =>
    fetch(`${coordinator.url}${route}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });

  beforeAll(async () => {
    coordinator = await startCoordinatorProcess({ ...cluster.env, API_KEYS: user, ADMIN_API_KEYS: admin, CORPORA: `docs=${path}`, DEFAULT_CORPUS: 'docs', INGEST_ROOTS: cluster.dir });
  });
  afterAll(async () => {
    await coordinator.kill('SIGKILL');
    await cluster.stop();
  });

  it('is 403 for a key that is not an admin’s, and 400 for a bad name', async () => {
    const res = await call('POST', '/v1/corpora', user, { name: 'docs' });
    expect(res.status).toBe(403);
    expect((await res.json()).message).toMatch(/admin key/);
    expect((await call('POST', '/v1/corpora', admin, { name: '../etc' })).status).toBe(400);
    expect((await call('POST', '/v1/corpora', admin, { name: 'nope' })).status).toBe(400);
    expect((await call('POST', '/v1/corpora', admin, { name: 'docs', path: 'relative/file.jsonl' })).status).toBe(400);
  });

  it('refuses a path outside INGEST_ROOTS, as written or after ..', async () => {
    for (const outside of ['/etc/hostname', '/dev/zero', '/etc', `${cluster.dir}/../elsewhere.jsonl`, `${cluster.dir}-sibling/docs.jsonl`]) {
      const res = await call('POST', '/v1/corpora', admin, { name: 'outside', path: outside });
      expect(res.status, outside).toBe(400);
      expect((await res.json()).message, outside).toBe('path: must lie in one of the folders INGEST_ROOTS names');
    }
    expect((await call('GET', '/v1/corpora/outside', user)).status).toBe(404);
  });

  it('answers 409 with the ingest’s progress while the corpus ingests, and 202 once it is ready', { timeout: 90_000 }, async () => {
    // No worker runs yet, so the ingest stays queued for as long as this test needs.
    // A corpus the server does not configure (no CORPORA entry): named with its path, answered from the store once ingested.
    expect((await call('POST', '/v1/research', user, { topic: 'What do the documents say about salmon?', corpus: 'fresh' })).status).toBe(400);
    const started = await call('POST', '/v1/corpora', admin, { name: 'fresh', path });
    expect(started.status).toBe(202);
    const ingest = await started.json();
    expect(ingest).toMatchObject({ corpus: 'fresh', status: 'planning', links: { self: '/v1/corpora/fresh' } });

    const busy = await call('POST', '/v1/research', user, { topic: 'What do the documents say about salmon?', corpus: 'fresh' });
    expect(busy.status).toBe(409);
    const body = await busy.json();
    expect(body.message).toMatch(/still ingesting/);
    expect(body.ingest).toMatchObject({ corpus: 'fresh', ingestId: ingest.ingestId, status: 'planning' });
    // A second ingest of the same corpus meanwhile is refused too.
    expect((await call('POST', '/v1/corpora', admin, { name: 'fresh', path })).status).toBe(409);

    await cluster.startWorker('ingest-api-worker');
    await waitFor(async () => (await (await call('GET', '/v1/corpora/fresh', user)).json()).status === 'ready', 60_000, 'the corpus to be ready');
    const progress = await (await call('GET', '/v1/corpora/fresh', user)).json();
    expect(progress).toMatchObject({ passages: 300, changed: 300, status: 'ready' });
    expect(progress.chunksDone).toBe(progress.chunks);
    // The corpus list (the web page's corpus menu) names it beside the configured ones.
    expect(await (await call('GET', '/v1/corpora', user)).json()).toEqual({ default: 'docs', corpora: ['docs', 'fresh', 'sotu'] });

    const accepted = await call('POST', '/v1/research', user, { topic: 'What do the documents say about salmon?', corpus: 'fresh' });
    expect(accepted.status).toBe(202);
    const { id } = await accepted.json();
    await waitFor(async () => ['done', 'failed'].includes((await (await call('GET', `/v1/research/${id}`, user)).json()).status), 60_000, 'the run to end');
    const report = await (await call('GET', `/v1/research/${id}/report`, user)).json();
    expect(report.sources.length).toBeGreaterThan(0);
    expect(report.sources.every((s: { id: string }) => /^doc-\d+\/p\d$/.test(s.id))).toBe(true);
  });

  it('refuses a corpus name that differs from an existing one only in letter case, over REST and the CLI, naming the existing one', { timeout: 60_000 }, async () => {
    // `fresh` was ingested above; `docs` is configured.
    for (const [name, existing] of [['Fresh', 'fresh'], ['FRESH', 'fresh'], ['Docs', 'docs']] as const) {
      const res = await call('POST', '/v1/corpora', admin, { name, path });
      expect(res.status, name).toBe(409);
      expect(await res.json(), name).toMatchObject({
        message: `corpus name "${name}" is taken by the corpus "${existing}": corpus names are unique whatever their letter case; ingest into "${existing}" or choose another name`,
        corpus: existing,
      });
      expect((await call('GET', `/v1/corpora/${name}`, user)).status, name).toBe(404);
    }
    const cli = await run(process.execPath, [CLI_INGEST, '--corpus', `Fresh=${path}`], { env: { ...process.env, ...cluster.env, REDIS_URL } }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
    );
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain('corpus name "Fresh" is taken by the corpus "fresh"');
    expect((await (await call('GET', '/v1/corpora', user)).json()).corpora).toEqual(['docs', 'fresh', 'sotu']);
    // The same name in the same case is a re-ingest, as before.
    expect((await call('POST', '/v1/corpora', admin, { name: 'fresh', path })).status).toBe(202);
    await waitFor(async () => (await (await call('GET', '/v1/corpora/fresh', user)).json()).status === 'ready', 30_000, 'the re-ingest to end');
  });

  it('DELETE /v1/corpora/:name (admin keys) removes an ingested corpus: gone from the list, the store and research; refused while it ingests or when configured', { timeout: 90_000 }, async () => {
    const ingested = await call('POST', '/v1/corpora', admin, { name: 'doomed', path });
    expect(ingested.status).toBe(202);
    await waitFor(async () => (await (await call('GET', '/v1/corpora/doomed', user)).json()).status === 'ready', 60_000, 'the corpus to be ready');
    expect((await cluster.passages().stats('doomed')).passages).toBe(300);

    const forbidden = await call('DELETE', '/v1/corpora/doomed', user);
    expect(forbidden.status).toBe(403);
    expect((await call('DELETE', '/v1/corpora/..%2Fetc', admin)).status).toBe(400);
    expect((await call('DELETE', '/v1/corpora/never-was', admin)).status).toBe(404);
    const configured = await call('DELETE', '/v1/corpora/docs', admin);
    expect(configured.status).toBe(409);
    expect((await configured.json()).message).toMatch(/configured .*CORPORA/);

    // An ingest under way (its planning mark, as POST /v1/corpora leaves it) is not raced.
    await cluster.state.begin('pending', 'mark-1', 60_000);
    const busy = await call('DELETE', '/v1/corpora/pending', admin);
    expect(busy.status).toBe(409);
    expect((await busy.json()).ingest).toMatchObject({ corpus: 'pending', status: 'planning' });

    const removed = await call('DELETE', '/v1/corpora/doomed', admin);
    expect(removed.status).toBe(204);
    expect((await cluster.passages().stats('doomed')).passages).toBe(0);
    expect((await call('GET', '/v1/corpora/doomed', user)).status).toBe(404);
    expect((await (await call('GET', '/v1/corpora', user)).json()).corpora).not.toContain('doomed');
    expect((await call('POST', '/v1/research', user, { topic: 'What do the documents say about salmon?', corpus: 'doomed' })).status).toBe(400);
    expect((await call('DELETE', '/v1/corpora/doomed', admin)).status).toBe(404);
  });

  it('npm run ingest -- --remove NAME removes an ingested corpus the same way', { timeout: 90_000 }, async () => {
    const ingestId = await cluster.ingest('cli-doomed', path);
    await cluster.waitReady('cli-doomed', ingestId);
    const env = { ...process.env, ...cluster.env, REDIS_URL };
    const cli = (...args: string[]) => run(process.execPath, [CLI_INGEST, ...args], { env }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );
    const done = await cli('--remove', 'cli-doomed');
    expect(done).toMatchObject({ code: 0, stdout: 'cli-doomed: removed\n' });
    expect((await cluster.passages().stats('cli-doomed')).passages).toBe(0);
    expect(await cluster.state.get('cli-doomed')).toBeUndefined();
    expect((await (await call('GET', '/v1/corpora', user)).json()).corpora).not.toContain('cli-doomed');
    const again = await cli('--remove', 'cli-doomed');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/never ingested/);
    expect((await cli('--remove', '../etc')).code).toBe(1);
  });

  it('ingests a folder but the files it must not read: one hard-linked to a file outside INGEST_ROOTS, one whose name is not UTF-8; both listed as skipped', { timeout: 60_000 }, async () => {
    const folder = join(cluster.dir, 'mixed');
    mkdirSync(folder);
    writeFileSync(join(folder, 'a.md'), '# Salmon\n\nSalmon return to the river where they hatched.');
    const outside = mkdtempSync(join(tmpdir(), 'orrery-outside-'));
    try {
      writeFileSync(join(outside, 'shadow.md'), '# Shadow\n\nroot:x:0:0 hunter2');
      linkSync(join(outside, 'shadow.md'), join(folder, 'b.md'));
      writeFileSync(Buffer.concat([Buffer.from(`${folder}/caf`), Buffer.from([0xe9]), Buffer.from('.md')]), '# Café\n\nCoffee.');
      if (!cluster.workers.length) await cluster.startWorker('ingest-api-worker');
      expect((await call('POST', '/v1/corpora', admin, { name: 'mixed', path: folder })).status).toBe(202);
      await waitFor(async () => ['ready', 'failed'].includes((await (await call('GET', '/v1/corpora/mixed', user)).json()).status), 30_000, 'the ingest to end');
      const progress = await (await call('GET', '/v1/corpora/mixed', user)).json();
      expect(progress).toMatchObject({ status: 'ready', passages: 1, skippedFiles: 2 });
      expect(progress.skipped).toEqual([
        // Names are checked as the folder is listed, links as each file is opened.
        { file: 'caf\\xE9.md', reason: 'its name is not valid UTF-8 (rename it to read it)' },
        { file: 'b.md', reason: expect.stringMatching(/^has 2 hard links, and ingest from a path a request names reads no file with more than one/) },
      ]);
      expect(JSON.stringify(progress)).not.toContain('hunter2');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('shows any key where and what a failed ingest met, never the path or the file’s text: REST, research’s 409, MCP', { timeout: 60_000 }, async () => {
    const environ = cluster.file('environ.jsonl', `${toJsonl(generatedPassages(2))}PORT=39101\0SECRET=hunter2\n`);
    expect((await call('POST', '/v1/corpora', admin, { name: 'environ', path: environ })).status).toBe(202);
    await waitFor(async () => (await (await call('GET', '/v1/corpora/environ', user)).json()).status === 'failed', 30_000, 'the ingest to fail');
    const leaks = (text: string) => [cluster.dir, 'environ.jsonl', 'PORT', 'hunter2'].filter((s) => text.includes(s));

    const progress = await (await call('GET', '/v1/corpora/environ', user)).json();
    expect(progress.error).toBe('plan: line 3: not valid JSON');
    expect(leaks(JSON.stringify(progress))).toEqual([]);

    const busy = await call('POST', '/v1/research', user, { topic: 'What do the documents say about salmon?', corpus: 'environ' });
    expect(busy.status).toBe(409);
    const body = await busy.text();
    expect(body).toContain('line 3: not valid JSON');
    expect(leaks(body)).toEqual([]);

    const client = new Client({ name: 'orrery-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${coordinator.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${user}` } } }));
    try {
      const r = await client.callTool({ name: 'research', arguments: { topic: 'What do the documents say about salmon?', corpus: 'environ' } });
      expect(r.isError).toBe(true);
      const text = JSON.stringify(r.content);
      expect(text).toContain('line 3: not valid JSON');
      expect(leaks(text)).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('POST /v1/corpora without INGEST_ROOTS', () => {
  const cluster = new IngestCluster('ingest-no-roots');
  const admin = newApiKey();
  const user = newApiKey();
  let coordinator: ServiceProcess & { url: string };
  const path = cluster.file('docs.jsonl', toJsonl(generatedPassages(20)));
  const environ = cluster.file('environ.jsonl', `${toJsonl(generatedPassages(2))}PORT=39101\0SECRET=hunter2\n`);
  const post = (body: unknown) => fetch(`${coordinator.url}/v1/corpora`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    coordinator = await startCoordinatorProcess({ ...cluster.env, API_KEYS: user, ADMIN_API_KEYS: admin, CORPORA: `docs=${path},environ=${environ}` });
  });
  afterAll(async () => {
    await coordinator.kill('SIGKILL');
    await cluster.stop();
  });

  it('reads no path a request names, until the operator sets the folders; a CORPORA name still ingests', async () => {
    for (const p of [path, '/dev/zero']) {
      const res = await post({ name: 'fresh', path: p });
      expect(res.status, p).toBe(400);
      expect((await res.json()).message, p).toMatch(/until its operator sets INGEST_ROOTS/);
    }
    expect((await post({ name: 'docs' })).status).toBe(202);
  });

  it('a configured corpus that cannot be read fails its run with the line and the problem, not the path or the text', { timeout: 60_000 }, async () => {
    const get = (route: string) => fetch(`${coordinator.url}${route}`, { headers: { authorization: `Bearer ${user}` } });
    const started = await fetch(`${coordinator.url}/v1/research`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user}`, 'content-type': 'application/json' },
      body: JSON.stringify({ topic: 'What do the documents say about salmon?', corpus: 'environ' }),
    });
    expect(started.status).toBe(202);
    const { id } = await started.json();
    let run: { status: string } = { status: '' };
    await waitFor(async () => ['done', 'failed', 'needs_review'].includes((run = await (await get(`/v1/research/${id}`)).json()).status), 45_000, 'the run to end');
    const everything = JSON.stringify(run) + (await (await get(`/v1/research/${id}/events`)).text());
    expect(everything).toContain('line 3: not valid JSON');
    for (const leak of [cluster.dir, 'environ.jsonl', 'PORT', 'hunter2']) expect(everything).not.toContain(leak);
  });
});
