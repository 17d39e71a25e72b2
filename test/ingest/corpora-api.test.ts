import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, startCoordinatorProcess, waitFor } from '../support/service-processes';
import { newApiKey } from '../support/test-env';
import { generatedPassages, IngestCluster, toJsonl } from './ingest-support';

describe('POST /v1/corpora and research on a corpus still ingesting', () => {
  const cluster = new IngestCluster('ingest-api');
  const user = newApiKey();
  const admin = newApiKey();
  let coordinator: ServiceProcess & { url: string };
  const path = cluster.file('docs.jsonl', toJsonl(generatedPassages(300)));

  const call = (method: string, route: string, key: string, body?: unknown) =>
    fetch(`${coordinator.url}${route}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });

  beforeAll(async () => {
    coordinator = await startCoordinatorProcess({ ...cluster.env, API_KEYS: user, ADMIN_API_KEYS: admin, CORPORA: `docs=${path}`, DEFAULT_CORPUS: 'docs' });
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
});
