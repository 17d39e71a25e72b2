import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, startCoordinatorProcess } from '../support/service-processes';
import { newApiKey } from '../support/test-env';
import { generatedPassages, IngestCluster, toJsonl } from './ingest-support';

/** BullMQ keeps the ingest queue's own keys under `<prefix>:ingest:`; these names are some of them. */
const QUEUE_WORDS = ['events', 'wait', 'meta', 'completed'];

describe('corpus ingest state lives apart from the ingest queue’s keys', () => {
  const cluster = new IngestCluster('corpus-keys');
  afterAll(() => cluster.stop());

  it('a corpus named after a queue key neither reads nor overwrites the queue', async () => {
    // A job on the queue makes BullMQ create its wait list, events stream and meta hash.
    await cluster.queue.add('probe', { n: 1 });
    for (const name of QUEUE_WORDS) expect(await cluster.state.get(name)).toBeUndefined();
    await cluster.state.begin('wait', 'abc-1', 60_000);
    await cluster.state.fail('wait', 'abc-1', 'plan: line 1: not valid JSON');
    expect(await cluster.state.get('wait')).toMatchObject({ corpus: 'wait', status: 'failed' });
    // The queue still works: its wait list was not replaced by a corpus's state.
    await cluster.queue.add('probe', { n: 2 });
    expect(await cluster.queue.getWaitingCount()).toBe(2);
  });
});

describe.each(['sqlite', 'postgres'] as const)('corpus names over REST, %s store', (store) => {
  const cluster = new IngestCluster(`corpus-names-${store}`, {}, store);
  const user = newApiKey();
  const admin = newApiKey();
  let coordinator: ServiceProcess & { url: string };
  const path = cluster.file('docs.jsonl', toJsonl(generatedPassages(30)));

  const call = (method: string, route: string, key: string, body?: unknown) =>
    fetch(`${coordinator.url}${route}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });

  beforeAll(async () => {
    coordinator = await startCoordinatorProcess({ ...cluster.env, API_KEYS: user, ADMIN_API_KEYS: admin, CORPORA: `docs=${path}`, INGEST_ROOTS: cluster.dir });
    await cluster.queue.add('probe', { n: 1 });
  });
  afterAll(async () => {
    await coordinator.kill('SIGKILL');
    await cluster.stop();
  });

  it('refuses to ingest under the built-in name or a queue word, with 400 and the reason', async () => {
    for (const name of ['sotu', 'SOTU', ...QUEUE_WORDS, 'stalled', 'prioritized']) {
      const res = await call('POST', '/v1/corpora', admin, { name, path });
      expect(res.status, name).toBe(400);
      expect((await res.json()).message, name).toMatch(/is reserved/);
    }
  });

  it('answers a queue word as any unknown corpus: 404 for its ingest, 400 for research, never 500', async () => {
    for (const name of QUEUE_WORDS) {
      expect((await call('GET', `/v1/corpora/${name}`, user)).status, name).toBe(404);
      const research = await call('POST', '/v1/research', user, { topic: 'What do the documents say about salmon?', corpus: name });
      expect(research.status, name).toBe(400);
    }
  });

  it('a failed ingest under one name never blocks research on another corpus', async () => {
    // A failed ingest under the built-in name (the CLI or an older server could record one) and under a stored corpus.
    for (const name of ['sotu', 'docs', 'fresh']) {
      await cluster.state.begin(name, `${name}-1`, 60_000);
      await cluster.state.fail(name, `${name}-1`, 'plan: line 3: not valid JSON');
    }
    // The default corpus and the configured one are read from their files: the store's failed ingests do not touch them.
    expect((await call('POST', '/v1/research', user, { topic: 'How have presidents talked about the economy?' })).status).toBe(202);
    expect((await call('POST', '/v1/research', user, { topic: 'What do the documents say about salmon?', corpus: 'docs' })).status).toBe(202);
    // The stored corpus whose own ingest failed is the one that answers 409.
    const fresh = await call('POST', '/v1/research', user, { topic: 'What do the documents say about salmon?', corpus: 'fresh' });
    expect(fresh.status).toBe(409);
    expect((await fresh.json()).message).toMatch(/corpus fresh: its last ingest failed \(plan: line 3: not valid JSON\)/);
  });
});
