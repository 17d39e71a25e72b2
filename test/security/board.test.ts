/**
 * Bull Board is read-only for ordinary keys: every write (pause, rate limit, add a job, edit or retry one, clean,
 * empty, obliterate) and the Redis statistics are 403; an admin key (ADMIN_API_KEYS) may act. A browser opens it
 * by answering a Basic challenge with the key as the password, which nothing but the board accepts. A tenant key
 * reads the queues' counts only, however the path is spelled: no job, flow, worker or Redis detail.
 */
import { queuePrefix } from '@orrery/runtime';
import { FlowProducer } from 'bullmq';
import { get as httpGet } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';
import { newApiKey, REDIS_URL } from '../support/test-env';
import { launchChromium } from '../support/web-page';

const KEY = newApiKey();
const ADMIN = newApiKey();
/** Another tenant's topic, in the progress of a task that belongs to a flow. */
const SECRET = 'Kestrel River secret topic of another tenant';

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
    const flows = new FlowProducer({ connection: { url: REDIS_URL }, prefix: queuePrefix(stack.prefix) });
    await flows.add({ name: 'round', queueName: 'coordinator', data: { topic: SECRET }, opts: { jobId: 'flow-parent' }, children: [{ name: 'search', queueName: 'subagents', data: { topic: SECRET }, opts: { jobId: 'flow-child' } }] });
    await flows.close();
    await (await stack.queues.subagents.getJob('flow-child'))!.updateProgress({ message: SECRET });
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
    expect(await stack.queues.subagents.count()).toBe(2);
    expect((await stack.queues.subagents.getJob('board-probe'))?.data).toEqual({ placeholder: true });
  });

  it('still lets a non-admin key look, read-only', async () => {
    expect((await call(KEY, 'GET', '/')).status).toBe(200);
    const queues = (await (await call(KEY, 'GET', '/api/queues')).json()) as { queues: Array<{ name: string; readOnlyMode: boolean }> };
    expect(queues.queues.map((q) => q.name).sort()).toEqual(['coordinator', 'ingest', 'subagents', 'webhooks']);
    expect(queues.queues.every((q) => q.readOnlyMode)).toBe(true);
  });

  it('gives a tenant key only the queues’ counts, under every spelling of a path: letter case, slashes, escapes', async () => {
    const denied = [
      '/api/REDIS/stats',
      '/API/Redis/Stats',
      '/api/redis/stats/',
      '/api//redis/stats',
      '//api/redis/stats',
      '/api/%72edis/stats',
      '/api/queues/subagents/flow-child/Flow',
      '/api/queues/subagents/flow-child/FLOW/',
      '/api/queues/subagents/flow-child/flow?root=node',
      '/api/queues/coordinator/flow-parent/flow',
      '/api/queues/subagents/flow-child/Logs',
      '/api/queues/subagents/flow-child',
      '/api/queues/subagents/board-probe',
      '/api/queues/coordinator/workers',
      '/api/queues/coordinator/Workers',
      '/api/queues/subagents/metrics',
      '/api/job-schedulers',
      '/api/queues/subagents/default-job-options',
      '/api/queues/subagents/job-data-schema',
      '/queue/subagents/board-probe',
    ];
    for (const path of denied) {
      const res = await call(KEY, 'GET', path);
      expect(res.status, path).toBe(403);
      expect(await res.text(), path).not.toContain(SECRET);
    }
    // Sent as written: fetch and URL resolve `%2e%2e` themselves.
    const port = new URL(stack.coordinator.url).port;
    const asWritten = (path: string) =>
      new Promise<number>((resolve, reject) => httpGet({ host: '127.0.0.1', port, path: `/queues${path}`, headers: { authorization: `Bearer ${KEY}` } }, (res) => (res.resume(), resolve(res.statusCode ?? 0))).on('error', reject));
    for (const path of ['/api/queues/subagents/flow-child%2Fflow', '/api/queues/%2e%2e/redis/stats', '/api/queues/x/..%2fredis/stats', '/api/%zz', '/api/queues/sub%00agents']) expect(await asWritten(path), path).toBe(400);
    for (const path of ['/api/queues?activeQueue=subagents&status=waiting', '/API/Queues/?activeQueue=subagents&status=waiting-children', '/api/queues?activeQueue=coordinator&status=waiting-children', '/api/queues?activeQueue=subagents']) {
      const res = await call(KEY, 'GET', path);
      expect(res.status, path).toBe(200);
      const text = await res.text();
      for (const hidden of [SECRET, 'board-probe', 'flow-child', 'flow-parent', 'placeholder', 'addr']) expect(text, `${path}: ${hidden}`).not.toContain(hidden);
      const body = JSON.parse(text) as { queues: Array<{ name: string; counts: Record<string, number>; jobs: unknown[] }> };
      expect(body.queues.find((q) => q.name === 'subagents')?.counts.waiting, path).toBe(2);
      expect(body.queues.every((q) => q.jobs.length === 0), path).toBe(true);
    }
    expect((await call(KEY, 'GET', '/queue/subagents')).status).toBe(200);
  });

  it('shows an admin key the flows, jobs and workers as they are', async () => {
    expect(await (await call(ADMIN, 'GET', '/api/queues/subagents/flow-child/flow')).text()).toContain(SECRET);
    expect(await (await call(ADMIN, 'GET', '/api/queues?activeQueue=subagents&status=waiting')).text()).toContain('board-probe');
    expect((await call(ADMIN, 'GET', '/api/queues/coordinator/workers')).status).toBe(200);
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
