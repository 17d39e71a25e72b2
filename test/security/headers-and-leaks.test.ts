/**
 * Small leaks: no X-Powered-By; nosniff, CSP, frame and referrer policy on the docs and the board; /readyz shows
 * queue depths to admins only; two concurrent answers to a run in review: one wins, the other gets 409.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/service-processes';
import { type Stack, startStack } from '../support/stack';
import { newApiKey } from '../support/test-env';

const KEY = newApiKey();
const ADMIN = newApiKey();

describe('headers and small leaks', () => {
  let stack: Stack;
  const get = (path: string, key?: string) => fetch(`${stack.coordinator.url}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  beforeAll(async () => {
    // Six planned subtopics, s3 and s6 empty: a run of six tasks pauses in needs_review.
    stack = await startStack('headers', { workers: 1, env: { API_KEYS: KEY, ADMIN_API_KEYS: ADMIN, SIMULATED_SUBTOPICS: '6', SIMULATED_EMPTY_EVERY: '3' }, workerEnv: { SUBAGENT_CONCURRENCY: '6' } });
  });
  afterAll(async () => stack?.stop());

  it('sends no X-Powered-By, and protective headers on the docs and the board', async () => {
    for (const path of ['/docs', '/docs/openapi.json', '/queues', '/queues/api/queues', '/v1/research/00000000-0000-4000-8000-000000000000', '/healthz']) {
      const res = await get(path, KEY);
      expect(res.headers.get('x-powered-by'), path).toBeNull();
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
    for (const path of ['/docs', '/queues']) {
      const res = await get(path, KEY);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-security-policy'), path).toMatch(/frame-ancestors 'none'/);
      expect(res.headers.get('content-security-policy'), path).toMatch(/script-src 'self'/);
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer');
    }
    expect((await get('/docs')).headers.get('x-powered-by')).toBeNull();
  });

  it('/readyz tells anyone whether it is ready, and only an admin key the queue depths', async () => {
    for (const key of [undefined, KEY]) {
      const body = (await (await get('/readyz', key)).json()) as Record<string, unknown>;
      expect(body).toEqual({ status: 'ready' });
    }
    const admin = (await (await get('/readyz', ADMIN)).json()) as { status: string; queues: Record<string, unknown> };
    expect(admin.status).toBe('ready');
    expect(Object.keys(admin.queues).sort()).toEqual(['coordinator', 'subagents']);
  });

  it('/metrics is for admin keys', async () => {
    expect((await get('/metrics', KEY)).status).toBe(403);
    expect((await get('/metrics', ADMIN)).status).toBe(200);
  });

  it('two concurrent answers to a run in review: one is taken, the other gets 409', async () => {
    const created = await fetch(`${stack.coordinator.url}/v1/research`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ topic: 'renewable energy storage overview', engine: 'simulated', budget: { maxTasks: 6 } }),
    });
    const { id } = (await created.json()) as { id: string };
    await waitFor(async () => ((await (await get(`/v1/research/${id}`, KEY)).json()) as { status: string }).status === 'needs_review', 30_000, 'the run to need review');
    const answer = (action: string) =>
      fetch(`${stack.coordinator.url}/v1/research/${id}/decision`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ action, extraBudget: { maxTasks: 4 } }) });
    const statuses = (await Promise.all([answer('continue'), answer('stop')])).map((r) => r.status).sort();
    expect(statuses).toEqual([202, 409]);
    const humans = ((await (await get(`/v1/research/${id}/decisions`, KEY)).json()) as Array<{ decisionType: string }>).filter((d) => d.decisionType === 'human-decision');
    expect(humans).toHaveLength(1);
  });
});
