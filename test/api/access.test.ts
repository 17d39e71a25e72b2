import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, startCoordinatorProcess } from '../support/service-processes';
import { dropPrefix, FIXTURE_CORPUS, newApiKey, uniquePrefix } from '../support/test-env';

const KEY_ONE = newApiKey();
const KEY_TWO = newApiKey();

describe('access with API_KEYS', () => {
  const prefix = uniquePrefix('access');
  let coordinator: ServiceProcess & { url: string };
  beforeAll(async () => {
    coordinator = await startCoordinatorProcess({ QUEUE_PREFIX: prefix, API_KEYS: `${KEY_ONE},${KEY_TWO}`, HOST: '127.0.0.1', CORPORA: `kestrel=${FIXTURE_CORPUS}`, DEFAULT_CORPUS: 'kestrel' });
  });
  afterAll(async () => {
    await coordinator?.kill();
    await dropPrefix(prefix);
  });

  const get = (path: string, key?: string) => fetch(`${coordinator.url}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });

  it('refuses every route without a valid key, /healthz excepted', async () => {
    for (const path of ['/v1/research/00000000-0000-4000-8000-000000000000', '/queues', '/docs', '/docs/openapi.json']) {
      expect((await get(path)).status, path).toBe(401);
      expect((await get(path, 'wrong-key')).status, path).toBe(401);
      expect((await get(path, `${KEY_ONE}-and-more`)).status, path).toBe(401);
    }
    const post = await fetch(`${coordinator.url}/v1/research`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"topic":"Kestrel River"}' });
    expect(post.status).toBe(401);
    expect((await get('/healthz')).status).toBe(200);
  });

  it('lets a valid key through to the API, Bull Board and the OpenAPI document', async () => {
    expect((await get('/v1/research/00000000-0000-4000-8000-000000000000', KEY_TWO)).status).toBe(404);
    expect((await get('/queues', KEY_ONE)).status).toBe(200);
    const doc = (await (await get('/docs/openapi.json', KEY_ONE)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toContain('/v1/research');
    const post = await fetch(`${coordinator.url}/v1/research`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY_ONE}` },
      body: '{"topic":"Kestrel River"}',
    });
    expect(post.status).toBe(202);
  });

  it('guards the report exports as the other report routes: a key, the owner, a format it knows', async () => {
    const post = await fetch(`${coordinator.url}/v1/research`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY_ONE}` },
      body: '{"topic":"Kestrel River exports"}',
    });
    const { id } = (await post.json()) as { id: string };
    for (const format of ['html', 'docx', 'pdf']) {
      const path = `/v1/research/${id}/report?format=${format}`;
      expect((await get(path)).status, path).toBe(401);
      // Another key's run is not found, as on every run route; the owner's is not ready (no worker here).
      expect((await get(path, KEY_TWO)).status, path).toBe(404);
      expect((await get(path, KEY_ONE)).status, path).toBe(409);
    }
    const unknown = await get(`/v1/research/${id}/report?format=exe`, KEY_ONE);
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { message: string }).message).toMatch(/format/);
  });
});

describe('without API_KEYS', () => {
  it('binds to 127.0.0.1 only and says so', async () => {
    const prefix = uniquePrefix('open');
    const coordinator = await startCoordinatorProcess({ QUEUE_PREFIX: prefix, CORPORA: `kestrel=${FIXTURE_CORPUS}` });
    try {
      expect(coordinator.output()).toMatch(/listening on 127\.0\.0\.1:\d+ \(no API_KEYS set: bound to 127\.0\.0\.1 only\)/);
      expect((await fetch(`${coordinator.url}/queues`)).status).toBe(200);
    } finally {
      await coordinator.kill();
      await dropPrefix(prefix);
    }
  });
});
