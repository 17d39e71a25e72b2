/**
 * What a web page can make a browser send. Without API keys the service answers only requests for a loopback
 * Host (DNS rebinding gets 403), and with or without keys every write must be JSON (415 otherwise: a cross-site
 * form or text/plain POST cannot be) and not come from another site (403 on a cross-site Origin).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';
import { newApiKey, rawRequest } from '../support/test-env';

describe('keyless loopback mode against a web page', () => {
  let stack: Stack;
  let runId: string;
  beforeAll(async () => {
    stack = await startStack('browser', { workers: 0 });
    runId = (await stack.client.submit({ topic: 'Kestrel River browser probe', engine: 'simulated' })).id;
  });
  afterAll(async () => stack?.stop());

  const at = (path: string) => `${stack.coordinator.url}${path}`;
  const port = () => new URL(stack.coordinator.url).port;

  it('refuses a rebinding Host with 403 on the API, the board and the docs', async () => {
    for (const path of [`/v1/research/${runId}`, `/v1/research/${runId}/events`, '/queues', '/queues/api/queues', '/docs', '/metrics']) {
      const res = await rawRequest(at(path), { headers: { host: `rebind.evil.example:${port()}` } });
      expect(res.status, path).toBe(403);
      expect(res.body, path).not.toContain('Kestrel');
    }
    const post = await rawRequest(at('/v1/research'), { method: 'POST', headers: { host: 'rebind.evil.example', 'content-type': 'application/json' }, body: '{"topic":"rebound run"}' });
    expect(post.status).toBe(403);
  });

  it('refuses a Host that only starts like a loopback name', async () => {
    for (const host of ['[::1]evil.example', `[::1]evil.example:${port()}`, '[::1].evil.example', `[::1]:${port()}evil.example`, `localhost:${port()}@evil.example`, 'localhost.evil.example', '127.0.0.1.evil.example', 'localhost:x']) {
      expect((await rawRequest(at(`/v1/research/${runId}`), { headers: { host } })).status, host).toBe(403);
    }
  });

  it('accepts the loopback names', async () => {
    for (const host of [`127.0.0.1:${port()}`, `localhost:${port()}`, `[::1]:${port()}`]) expect((await rawRequest(at(`/v1/research/${runId}`), { headers: { host } })).status, host).toBe(200);
  });

  it('refuses writes that are not JSON with 415: a text/plain run, a board job, a bodiless cancel', async () => {
    const plain = await rawRequest(at('/v1/research'), { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"topic":"a text/plain run"}' });
    expect(plain.status).toBe(415);
    const form = await rawRequest(at('/v1/research'), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'topic=a+form+run' });
    expect(form.status).toBe(415);
    const job = await rawRequest(at('/queues/api/queues/subagents/add'), { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"name":"search","data":{}}' });
    expect(job.status).toBe(415);
    const cancel = await rawRequest(at(`/v1/research/${runId}/cancel`), { method: 'POST' });
    expect(cancel.status).toBe(415);
    expect((await stack.client.run(runId)).status).not.toBe('cancelled');
    expect(await stack.queues.subagents.getJobs(['waiting']).then((jobs) => jobs.filter((j) => !j.data.runId).length)).toBe(0);
  });

  it('refuses a cross-site Origin on writes with 403, and accepts the page’s own origin', async () => {
    const evil = await rawRequest(at(`/v1/research/${runId}/cancel`), { method: 'POST', headers: { origin: 'https://evil.example', 'content-type': 'application/json' }, body: '{}' });
    expect(evil.status).toBe(403);
    const fetchSite = await rawRequest(at(`/v1/research/${runId}/cancel`), { method: 'POST', headers: { 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' }, body: '{}' });
    expect(fetchSite.status).toBe(403);
    expect((await stack.client.run(runId)).status).not.toBe('cancelled');
    const own = await rawRequest(at('/v1/research'), { method: 'POST', headers: { origin: stack.coordinator.url, 'content-type': 'application/json' }, body: '{"topic":"a same-origin run","engine":"simulated"}' });
    expect(own.status).toBe(202);
  });
});

describe('JSON writes with API keys too', () => {
  const KEY = newApiKey();
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('browser-keys', { workers: 0, env: { API_KEYS: KEY } });
  });
  afterAll(async () => stack?.stop());

  it('a text/plain POST with a valid key is 415, and creates nothing', async () => {
    const res = await rawRequest(`${stack.coordinator.url}/v1/research`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'text/plain' }, body: '{"topic":"a text/plain run"}' });
    expect(res.status).toBe(415);
    expect(await stack.queues.coordinator.count()).toBe(0);
  });
});
