import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngestState } from '@orrery/runtime';
import { generatedPassages, IngestCluster, toJsonl } from '../ingest/ingest-support';
import { type ServiceProcess, startCoordinatorProcess, waitFor } from '../support/service-processes';
import { newApiKey } from '../support/test-env';

/** A PostgreSQL address nothing listens on, with a user and password that must reach no client. */
const DOWN_STORE = 'postgres://orrery-user:pg-s3cret-pw@127.0.0.1:1/orrery_db';
const LEAKS = ['127.0.0.1:1', 'orrery-user', 'pg-s3cret-pw', 'orrery_db', 'ECONNREFUSED', 'Redis'];
const leaks = (text: string) => LEAKS.filter((s) => text.includes(s));

describe('a PostgreSQL passage store that is down', () => {
  const cluster = new IngestCluster('store-down', {}, 'postgres');
  const key = newApiKey();
  let coordinator: ServiceProcess & { url: string };
  let downCoordinator: ServiceProcess & { url: string };

  const call = (base: string, method: string, route: string, body?: unknown) =>
    fetch(`${base}${route}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });

  beforeAll(async () => {
    const env = { ...cluster.env, API_KEYS: key, TASK_ATTEMPTS: '1' };
    coordinator = await startCoordinatorProcess(env);
    // On a prefix of its own: it must take none of the other's runs.
    downCoordinator = await startCoordinatorProcess({ ...env, QUEUE_PREFIX: `${cluster.prefix}-down`, CORPUS_STORE: DOWN_STORE });
    // The corpus is ingested while the store is up; then the only worker left reads a store that is down.
    const worker = await cluster.startWorker('store-up');
    await cluster.waitReady('salmon', await cluster.ingest('salmon', cluster.file('salmon.jsonl', toJsonl(generatedPassages(40)))));
    await worker.kill('SIGKILL');
    await cluster.startWorker('store-down', { CORPUS_STORE: DOWN_STORE });
  }, 120_000);
  afterAll(async () => {
    await coordinator?.kill('SIGKILL');
    await downCoordinator?.kill('SIGKILL');
    await cluster.stop();
  });

  it('a worker whose store is down fails its tasks with "the passage store is unavailable", and the run\'s errors name no address, user or password', { timeout: 90_000 }, async () => {
    const res = await call(coordinator.url, 'POST', '/v1/research', { topic: 'What do the documents say about salmon?', corpus: 'salmon' });
    expect(res.status).toBe(202);
    const { id } = await res.json();
    await waitFor(async () => ['done', 'failed'].includes((await (await call(coordinator.url, 'GET', `/v1/research/${id}`)).json()).status), 60_000, 'the run to end');
    const run = await (await call(coordinator.url, 'GET', `/v1/research/${id}`)).json();
    expect(run.errors.length).toBeGreaterThan(0);
    // A run.failed webhook carries the last of these.
    for (const e of run.errors) expect(e.message).toMatch(/: the passage store is unavailable$/);
    expect(leaks(JSON.stringify(run))).toEqual([]);
    // The worker's log keeps what the driver said.
    expect(cluster.workers.at(-1)!.output()).toMatch(/passage store: ECONNREFUSED: connect ECONNREFUSED 127\.0\.0\.1:1/);
  });

  it('a coordinator whose store is down refuses research on a stored corpus with 503 "the passage store is unavailable", over REST and MCP, naming no address', { timeout: 30_000 }, async () => {
    // The corpus is ready as far as the down coordinator's Redis knows; its store cannot be read.
    const state = new IngestState(cluster.redis, `${cluster.prefix}-down`);
    await state.begin('salmon', 'ready-1', 60_000);
    await state.planning('salmon', 'ready-1', 'ready-1.a');
    await state.planned('salmon', 'ready-1', 'ready-1.a', { passages: 40, changed: 0, removed: 0, chunks: 0 });
    await state.ready('salmon', 'ready-1.a');
    const res = await call(downCoordinator.url, 'POST', '/v1/research', { topic: 'What do the documents say about salmon?', corpus: 'salmon' });
    const body = await res.text();
    expect(res.status).toBe(503);
    expect(JSON.parse(body).message).toBe('the passage store is unavailable; nothing was done, try again shortly');
    expect(leaks(body)).toEqual([]);

    const client = new Client({ name: 'orrery-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${downCoordinator.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    try {
      const r = await client.callTool({ name: 'research', arguments: { topic: 'What do the documents say about salmon?', corpus: 'salmon' } });
      expect(r.isError).toBe(true);
      const text = JSON.stringify(r.content);
      expect(text).toContain('the passage store is unavailable');
      expect(leaks(text)).toEqual([]);
    } finally {
      await client.close();
    }
    // The coordinator's log keeps what the driver said.
    expect(downCoordinator.output()).toMatch(/passage store: ECONNREFUSED: connect ECONNREFUSED 127\.0\.0\.1:1/);
  });

  it('answers REST on a coordinator whose store is down with 503 "the passage store is unavailable", not Redis, and no address', { timeout: 30_000 }, async () => {
    const res = await call(downCoordinator.url, 'GET', '/v1/corpora');
    const body = await res.text();
    expect(res.status).toBe(503);
    expect(JSON.parse(body).message).toMatch(/^the passage store is unavailable/);
    expect(leaks(body)).toEqual([]);
  });
});
