/**
 * Quotas and backpressure: runs started per key per minute, concurrent runs per key, tokens and dollars per key per day, a
 * global bound on queued work, and a throttle on failed authentication per client address. Every refusal is a 429
 * (or 503 for the global bound) with Retry-After, and creates nothing. Keys shorter than 32 characters stop startup.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, spawnApp, waitFor } from '../support/service-processes';
import { type Stack, startStack } from '../support/stack';
import { newApiKey, redisClient } from '../support/test-env';

const post = (url: string, key: string, topic = 'Kestrel River quota probe') =>
  fetch(`${url}/v1/research`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ topic, engine: 'simulated' }) });

describe('per-key run quotas', () => {
  const A = newApiKey();
  const B = newApiKey();
  const C = newApiKey();
  const D = newApiKey();
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('quotas', { workers: 0, env: { API_KEYS: `${A},${B},${C},${D}`, QUOTA_RUNS_PER_MINUTE: '100', QUOTA_CONCURRENT_RUNS: '1000', QUOTA_TOKENS_PER_DAY: '5000', QUOTA_COST_USD_PER_DAY: '2.5' } });
  });
  /** Sets one of a key's meters for today (as its runs' spending would have), found through a run it starts. */
  const meterStands = async (key: string, meter: 'tokens' | 'cost-microusd', value: number): Promise<void> => {
    const { id } = (await (await post(stack.coordinator.url, key)).json()) as { id: string };
    const run = (await (await fetch(`${stack.coordinator.url}/v1/research/${id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { owner: string };
    const redis = redisClient();
    await redis.set(`${stack.prefix}:quota:{${run.owner}}:${meter}:${new Date().toISOString().slice(0, 10)}`, String(value), 'EX', 172_800);
    redis.disconnect();
  };
  afterAll(async () => stack?.stop());

  it('the 101st run a key starts within a minute gets 429 with Retry-After; another key is not affected', { timeout: 60_000 }, async () => {
    for (let i = 0; i < 100; i++) expect((await post(stack.coordinator.url, A)).status, `run ${i + 1}`).toBe(202);
    const refused = await post(stack.coordinator.url, A);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(((await refused.json()) as { message: string }).message).toMatch(/runs per minute/);
    const runsOfA = ((await (await fetch(`${stack.coordinator.url}/v1/research?limit=200`, { headers: { authorization: `Bearer ${A}` } })).json()) as { runs: unknown[] }).runs;
    expect(runsOfA).toHaveLength(100);
    expect((await post(stack.coordinator.url, B)).status).toBe(202);
  });

  it('a key past its tokens for the day gets 429 until the day ends', async () => {
    // Usage is metered per key as runs spend it (test/anthropic/claude-run.test.ts); here the meter already stands above the day's 5000 tokens.
    await meterStands(C, 'tokens', 5001);
    const day = new Date().toISOString().slice(0, 10);
    const refused = await post(stack.coordinator.url, C);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { message: string }).message).toMatch(/tokens per day/);
    const secondsToMidnight = Math.ceil((Date.parse(`${day}T00:00:00Z`) + 86_400_000 - Date.now()) / 1000);
    expect(Math.abs(Number(refused.headers.get('retry-after')) - secondsToMidnight)).toBeLessThanOrEqual(5);
  });

  it('a key past its dollars for the day gets 429 until the day ends', async () => {
    await meterStands(D, 'cost-microusd', 2_500_000);
    const refused = await post(stack.coordinator.url, D);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { message: string }).message).toMatch(/\$2\.50 per day/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('requests per key per minute', () => {
  const A = newApiKey();
  const B = newApiKey();
  const ADMIN = newApiKey();
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('request-rate', { workers: 0, env: { API_KEYS: `${A},${B}`, ADMIN_API_KEYS: ADMIN, QUOTA_REQUESTS_PER_MINUTE: '30' } });
  });
  afterAll(async () => stack?.stop());
  const get = (key: string, path = '/v1/research') => fetch(`${stack.coordinator.url}${path}`, { headers: { authorization: `Bearer ${key}` } });

  it('the 31st request of a key within a minute gets 429 with Retry-After, on every surface; other keys and admins are not affected', async () => {
    for (let i = 0; i < 30; i++) expect((await get(A)).status, `request ${i + 1}`).toBe(200);
    const refused = await get(A);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(((await refused.json()) as { message: string }).message).toMatch(/30 requests in a minute/);
    // The board, the MCP endpoint and the page's API are behind the same meter.
    for (const path of ['/queues/api/queues', '/v1/corpora']) expect((await get(A, path)).status, path).toBe(429);
    const mcp = await fetch(`${stack.coordinator.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${A}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(429);
    expect((await get(B)).status).toBe(200);
    for (let i = 0; i < 40; i++) expect((await get(ADMIN)).status).toBe(200);
    // The page's own files need no key and are not counted.
    expect((await fetch(`${stack.coordinator.url}/`)).status).toBe(200);
  });
});

describe('concurrent runs', () => {
  const A = newApiKey();
  let stack: Stack;
  beforeAll(async () => {
    // No workers: every run stays in research. No queue bound, so the refusal is the key's own limit whatever the
    // plans have queued by then.
    stack = await startStack('concurrent', { workers: 0, env: { API_KEYS: A, QUOTA_CONCURRENT_RUNS: '2', QUEUE_MAX_WAITING: '0' } });
  });
  afterAll(async () => stack?.stop());

  it('a key with as many unfinished runs as allowed gets 429; cancelling one frees its place', async () => {
    const first = ((await (await post(stack.coordinator.url, A)).json()) as { id: string }).id;
    expect((await post(stack.coordinator.url, A)).status).toBe(202);
    const refused = await post(stack.coordinator.url, A);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as { message: string }).message).toMatch(/concurrent runs/);
    const cancel = await fetch(`${stack.coordinator.url}/v1/research/${first}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${A}`, 'content-type': 'application/json' }, body: '{}' });
    expect(cancel.status).toBe(202);
    expect((await post(stack.coordinator.url, A)).status).toBe(202);
  });
});

describe('queue backpressure', () => {
  const A = newApiKey();
  const B = newApiKey();
  let stack: Stack;
  beforeAll(async () => {
    // No workers: every run stays in research with its 4 tasks waiting.
    stack = await startStack('backpressure', { workers: 0, env: { API_KEYS: `${A},${B}`, QUEUE_MAX_WAITING: '6' } });
  });
  afterAll(async () => stack?.stop());

  it('while more tasks wait than QUEUE_MAX_WAITING, every key gets 503 with Retry-After, and nothing is queued', async () => {
    for (let i = 0; i < 2; i++) expect((await post(stack.coordinator.url, A)).status).toBe(202);
    await waitFor(async () => (await stack.queues.subagents.getWaitingCount()) > 6, 20_000, 'the tasks to queue up');
    const before = await stack.queues.coordinator.count();
    const refused = await post(stack.coordinator.url, B);
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await stack.queues.coordinator.count()).toBe(before);
  });
});

describe('failed authentication and key strength', () => {
  const KEY = newApiKey();
  const OTHER = newApiKey();
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('authfail', { workers: 0, env: { API_KEYS: KEY, AUTH_FAILURES_PER_MINUTE: '20' } });
  });
  afterAll(async () => stack?.stop());

  it('after 20 wrong keys in a minute, one client address gets 429 with Retry-After', async () => {
    const statuses: number[] = [];
    let retryAfter = 0;
    for (let i = 0; i < 30; i++) {
      const res = await fetch(`${stack.coordinator.url}/v1/research/00000000-0000-4000-8000-000000000000`, { headers: { authorization: `Bearer wrong-${i}-${'x'.repeat(40)}` } });
      statuses.push(res.status);
      if (res.status === 429) retryAfter = Number(res.headers.get('retry-after'));
    }
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(20).every((s) => s === 429)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('a key that worked from the address while it was failing goes on working once the address is blocked; no other key does', async () => {
    const vouchStack = await startStack('authvouch', { workers: 0, env: { API_KEYS: `${KEY},${OTHER}`, AUTH_FAILURES_PER_MINUTE: '5' } });
    try {
      const call = (key: string) => fetch(`${vouchStack.coordinator.url}/v1/research`, { headers: { authorization: `Bearer ${key}` } });
      // One client behind the shared address has a stale key; another, the right one.
      expect((await call(`stale-${'x'.repeat(40)}`)).status).toBe(401);
      expect((await call(KEY)).status).toBe(200);
      for (let i = 0; i < 4; i++) expect((await call(`stale-${'x'.repeat(40)}`)).status).toBe(401);
      expect((await call(`stale-${'x'.repeat(40)}`)).status).toBe(429);
      expect((await call(KEY)).status).toBe(200);
      // A right key the address had not used while failing is refused like a wrong one.
      const other = await call(OTHER);
      expect(other.status).toBe(429);
      expect(Number(other.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await vouchStack.stop();
    }
  });

  it('wrong keys on the open routes count like anywhere: 401, then 429 even for the admin key, while no key still gets the open answer', async () => {
    const ADMIN = newApiKey();
    const openStack = await startStack('authopen', { workers: 0, env: { API_KEYS: KEY, ADMIN_API_KEYS: ADMIN, AUTH_FAILURES_PER_MINUTE: '5' } });
    try {
      const get = (path: string, key?: string) => fetch(`${openStack.coordinator.url}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
      expect((await get('/readyz', ADMIN)).status).toBe(200);
      for (let i = 0; i < 5; i++) expect((await get(i % 2 ? '/healthz' : '/readyz', `guess-${i}-${'x'.repeat(40)}`)).status, `guess ${i + 1}`).toBe(401);
      for (const path of ['/readyz', '/healthz', '/']) expect((await get(path, `guess-6-${'x'.repeat(40)}`)).status, path).toBe(429);
      // A right key the address had not used while failing is no exception: the answer does not tell it apart.
      const admin = await get('/readyz', ADMIN);
      expect(admin.status).toBe(429);
      expect(await admin.text()).not.toMatch(/queues/);
      // Health checks send no key, and go on being answered.
      expect((await get('/readyz')).status).toBe(200);
      expect((await get('/healthz')).status).toBe(200);
    } finally {
      await openStack.stop();
    }
  });

  it('refuses to start with an API key shorter than 32 characters, saying how to make one and never printing it', async () => {
    for (const env of [{ API_KEYS: `${KEY},short-key-123` }, { API_KEYS: KEY, ADMIN_API_KEYS: 'admin-short' }]) {
      const proc: ServiceProcess = spawnApp('coordinator', { QUEUE_PREFIX: `${stack.prefix}-bad`, PORT: '0', ...env });
      await waitFor(() => proc.child.exitCode !== null, 20_000, 'the coordinator to refuse to start');
      expect(proc.child.exitCode).not.toBe(0);
      expect(proc.output()).toMatch(/at least 32 characters/);
      expect(proc.output()).toMatch(/openssl rand -hex 32/);
      expect(proc.output()).not.toMatch(/short-key-123|admin-short/);
    }
  });
});
