/**
 * Bull Board is read-only for ordinary keys: every write (pause, rate limit, add a job, edit or retry one, clean,
 * empty, obliterate) and the Redis statistics are 403; an admin key (ADMIN_API_KEYS) may act.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';
import { newApiKey } from '../support/test-env';

const KEY = newApiKey();
const ADMIN = newApiKey();

describe('Bull Board access', () => {
  let stack: Stack;
  const call = (key: string, method: string, path: string, body?: unknown) =>
    fetch(`${stack.coordinator.url}/queues${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  beforeAll(async () => {
    stack = await startStack('board', { workers: 0, env: { API_KEYS: KEY, ADMIN_API_KEYS: ADMIN } });
    await stack.queues.subagents.add('search', { placeholder: true }, { jobId: 'board-probe' });
  });
  afterAll(async () => stack?.stop());

  const writes: Array<[string, string, unknown?]> = [
    ['PUT', '/api/queues/subagents/pause'],
    ['PUT', '/api/queues/pause'],
    ['PUT', '/api/queues/subagents/rate-limit', { max: 1, duration: 60_000 }],
    ['PUT', '/api/queues/subagents/concurrency', { concurrency: 1 }],
    ['POST', '/api/queues/subagents/add', { name: 'search', data: { topic: 'unmetered' } }],
    ['PATCH', '/api/queues/subagents/board-probe/update-data', { data: { edited: true } }],
    ['PUT', '/api/queues/subagents/board-probe/retry'],
    ['PUT', '/api/queues/subagents/board-probe/clean'],
    ['PUT', '/api/queues/subagents/retry/failed'],
    ['PUT', '/api/queues/subagents/clean/completed'],
    ['PUT', '/api/queues/subagents/empty'],
    ['PUT', '/api/queues/subagents/obliterate', { force: true }],
  ];

  it('refuses every write and the Redis statistics to a non-admin key with 403, and nothing changes', async () => {
    for (const [method, path, body] of writes) expect((await call(KEY, method, path, body)).status, `${method} ${path}`).toBe(403);
    expect((await call(KEY, 'GET', '/api/redis/stats')).status).toBe(403);
    expect(await stack.queues.subagents.isPaused()).toBe(false);
    expect(await stack.queues.subagents.count()).toBe(1);
    expect((await stack.queues.subagents.getJob('board-probe'))?.data).toEqual({ placeholder: true });
  });

  it('still lets a non-admin key look, read-only', async () => {
    expect((await call(KEY, 'GET', '/')).status).toBe(200);
    const queues = (await (await call(KEY, 'GET', '/api/queues')).json()) as { queues: Array<{ name: string; readOnlyMode: boolean }> };
    expect(queues.queues.map((q) => q.name).sort()).toEqual(['coordinator', 'ingest', 'subagents']);
    expect(queues.queues.every((q) => q.readOnlyMode)).toBe(true);
  });

  it('lets an admin key act', async () => {
    expect((await call(ADMIN, 'GET', '/api/redis/stats')).status).toBe(200);
    expect((await call(ADMIN, 'PUT', '/api/queues/subagents/pause')).status).toBe(200);
    expect(await stack.queues.subagents.isPaused()).toBe(true);
    expect((await call(ADMIN, 'PUT', '/api/queues/subagents/resume')).status).toBe(200);
    expect(await stack.queues.subagents.isPaused()).toBe(false);
  });
});
