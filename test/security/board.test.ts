/**
 * Bull Board is read-only for ordinary keys: every write (pause, rate limit, add a job, edit or retry one, clean,
 * empty, obliterate) and the Redis statistics are 403; an admin key (ADMIN_API_KEYS) may act. A browser opens it
 * by answering a Basic challenge with the key as the password, which nothing but the board accepts.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';
import { newApiKey } from '../support/test-env';
import { launchChromium } from '../support/web-page';

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

  let browser: Browser;
  beforeAll(async () => {
    [stack, browser] = await Promise.all([startStack('board', { workers: 0, env: { API_KEYS: KEY, ADMIN_API_KEYS: ADMIN } }), launchChromium()]);
    await stack.queues.subagents.add('search', { placeholder: true }, { jobId: 'board-probe' });
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });
  const basic = (key: string, user = 'operator') => `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}`;

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
    expect(queues.queues.map((q) => q.name).sort()).toEqual(['coordinator', 'ingest', 'subagents', 'webhooks']);
    expect(queues.queues.every((q) => q.readOnlyMode)).toBe(true);
  });

  it('lets an admin key act', async () => {
    expect((await call(ADMIN, 'GET', '/api/redis/stats')).status).toBe(200);
    expect((await call(ADMIN, 'PUT', '/api/queues/subagents/pause')).status).toBe(200);
    expect(await stack.queues.subagents.isPaused()).toBe(true);
    expect((await call(ADMIN, 'PUT', '/api/queues/subagents/resume')).status).toBe(200);
    expect(await stack.queues.subagents.isPaused()).toBe(false);
  });

  it('challenges a browser with Basic on the board only, takes the key as the password, and keeps it read-only', async () => {
    const url = stack.coordinator.url;
    const challenge = await fetch(`${url}/queues`);
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    expect((await fetch(`${url}/v1/research`)).headers.get('www-authenticate')).toBe('Bearer');
    expect((await fetch(`${url}/queues/api/queues`, { headers: { authorization: basic('wrong-key') } })).status).toBe(401);
    expect((await fetch(`${url}/queues/api/queues`, { headers: { authorization: basic(KEY, '') } })).status).toBe(200);
    // Basic is the board's way in only: the REST API, where a browser would send it unasked, still wants a bearer key.
    expect((await fetch(`${url}/v1/research`, { headers: { authorization: basic(KEY) } })).status).toBe(401);
    expect((await fetch(`${url}/queues/api/queues/subagents/pause`, { method: 'PUT', headers: { authorization: basic(KEY) } })).status).toBe(403);
    expect(await stack.queues.subagents.isPaused()).toBe(false);
  });

  it('opens in Chromium with the key typed into the browser’s login prompt: queues listed, read-only for a tenant key', async () => {
    for (const [key, readOnly] of [
      [KEY, true],
      [ADMIN, false],
    ] as const) {
      const context = await browser.newContext({ httpCredentials: { username: 'operator', password: key } });
      const page = await context.newPage();
      const queuesCall = page.waitForResponse((r) => new URL(r.url()).pathname === '/queues/api/queues');
      expect((await page.goto(`${stack.coordinator.url}/queues`))?.status()).toBe(200);
      const answer = await queuesCall;
      expect(answer.status()).toBe(200);
      const body = (await answer.json()) as { queues: Array<{ name: string; readOnlyMode: boolean }> };
      expect(body.queues.every((q) => q.readOnlyMode === readOnly)).toBe(true);
      await page.getByText('subagents', { exact: true }).first().waitFor();
      await context.close();
    }
    // Without credentials the browser meets the challenge; headless, it has no prompt to show, so it gives up on it.
    const anonymous = await browser.newContext();
    await expect((await anonymous.newPage()).goto(`${stack.coordinator.url}/queues`)).rejects.toThrow(/ERR_INVALID_AUTH_CREDENTIALS/);
    await anonymous.close();
  });
});
