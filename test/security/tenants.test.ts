/**
 * Tenants: a run belongs to the key that started it (recorded as a hash, never the key). Another key gets 404 on
 * every route of that run, REST and SSE alike; `GET /v1/research` lists the caller's own runs; admin keys see all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';
import { newApiKey } from '../support/test-env';

const A = newApiKey();
const B = newApiKey();
const ADMIN = newApiKey();
const TOPIC = 'Kestrel River floods and tenancy';

describe('run ownership', () => {
  let stack: Stack;
  let runId: string;
  const call = (key: string, path: string, init: RequestInit = {}) =>
    fetch(`${stack.coordinator.url}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) } });

  beforeAll(async () => {
    stack = await startStack('tenants', { workers: 1, env: { API_KEYS: `${A},${B}`, ADMIN_API_KEYS: ADMIN } });
    const res = await call(A, '/v1/research', { method: 'POST', body: JSON.stringify({ topic: TOPIC, engine: 'simulated' }) });
    expect(res.status).toBe(202);
    runId = ((await res.json()) as { id: string }).id;
    for (let i = 0; i < 100; i++) {
      const run = (await (await call(A, `/v1/research/${runId}`)).json()) as { status: string };
      if (run.status === 'done') break;
      await new Promise((r) => setTimeout(r, 200));
    }
  });
  afterAll(async () => stack?.stop());

  it('the owner reads every route of its run; the record names its owner by a hash, not the key', async () => {
    const run = (await (await call(A, `/v1/research/${runId}`)).json()) as { status: string; owner: string };
    expect(run.status).toBe('done');
    expect(run.owner).toBeTruthy();
    expect(run.owner).not.toContain(A);
    expect(run.owner).not.toContain(A.slice(0, 16));
    for (const path of ['', '/report', '/report?format=markdown', '/decisions', '/events']) expect((await call(A, `/v1/research/${runId}${path}`)).status, path).toBe(200);
  });

  it('another key gets 404 on every route of the run, and changes nothing', async () => {
    for (const path of ['', '/report', '/report?format=markdown', '/decisions', '/events']) {
      const res = await call(B, `/v1/research/${runId}${path}`);
      expect(res.status, path).toBe(404);
      expect(await res.text(), path).not.toContain(TOPIC);
    }
    expect((await call(B, `/v1/research/${runId}/decision`, { method: 'POST', body: '{"action":"stop"}' })).status).toBe(404);
    expect((await call(B, `/v1/research/${runId}/cancel`, { method: 'POST', body: '{}' })).status).toBe(404);
    expect(((await (await call(A, `/v1/research/${runId}`)).json()) as { status: string }).status).toBe('done');
  });

  it('GET /v1/research lists the caller’s own runs; an admin key sees every run', async () => {
    const b = await call(B, '/v1/research', { method: 'POST', body: JSON.stringify({ topic: 'a second tenant run', engine: 'simulated' }) });
    const bRun = ((await b.json()) as { id: string }).id;
    const ids = async (key: string) => ((await (await call(key, '/v1/research')).json()) as { runs: Array<{ id: string }> }).runs.map((r) => r.id);
    expect(await ids(A)).toEqual([runId]);
    expect(await ids(B)).toEqual([bRun]);
    expect(new Set(await ids(ADMIN))).toEqual(new Set([runId, bRun]));
    expect((await call(ADMIN, `/v1/research/${runId}`)).status).toBe(200);
    expect((await call(ADMIN, `/v1/research/${runId}/events`)).status).toBe(200);
  });

  it('Bull Board shows a non-admin key no run’s topic; an admin key sees the jobs as they are', async () => {
    const board = async (key: string) => (await call(key, '/queues/api/queues?activeQueue=subagents&status=completed')).text();
    expect(await board(ADMIN)).toContain(TOPIC);
    const seen = await board(B);
    expect(seen).toContain('"subagents"');
    expect(seen).not.toContain(TOPIC);
  });
});
