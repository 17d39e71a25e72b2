import { WebhookPayloadSchema } from '@orrery/protocol';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrreryClient } from '../../apps/cli/src/client/orrery-client';
import { waitFor } from '../support/service-processes';
import { type Stack, startStack } from '../support/stack';
import { newApiKey } from '../support/test-env';
import { WebhookReceiver } from '../support/webhook-receiver';

const A = newApiKey();
const B = newApiKey();
const TOPIC = 'How do kestrels hunt?';

describe('completion webhooks', () => {
  let receiver: WebhookReceiver;
  let stack: Stack;
  let a: OrreryClient;
  const get = async <T>(key: string, path: string): Promise<T> => {
    const res = await fetch(`${stack.coordinator.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status, path).toBe(200);
    return (await res.json()) as T;
  };
  const post = (key: string, body: unknown) =>
    fetch(`${stack.coordinator.url}/v1/research`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    stack = await startStack('webhooks', { workers: 1, env: { API_KEYS: `${A},${B}`, WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`, WEBHOOK_BACKOFF_MS: '200', WEBHOOK_ATTEMPTS: '4' } });
    a = new OrreryClient(stack.coordinator.url, A);
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  it('posts once when the run is done, signed with the owner’s secret over the timestamp and the body', async () => {
    const { id } = await a.submit({ topic: TOPIC, webhook: { url: receiver.url('/done') } });
    expect(await a.waitForEnd(id)).toBe('done');
    await waitFor(() => receiver.on('/done').length > 0, 20_000, 'the webhook');
    await sleep(1500); // time enough for a duplicate to show
    const hooks = receiver.on('/done');
    expect(hooks).toHaveLength(1);
    const hook = hooks[0]!;
    expect(hook.headers['content-type']).toBe('application/json');
    expect(hook.headers['webhook-id']).toBe(`${id}.webhook.done`);
    expect(hook.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(Math.abs(Number(hook.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(120);

    const { secret } = await get<{ secret: string }>(A, '/v1/webhooks/secret');
    const payload = WebhookPayloadSchema.parse(new Webhook(secret).verify(hook.body, hook.headers as Record<string, string>));
    expect(payload).toMatchObject({ type: 'run.done', data: { id, status: 'done', topic: TOPIC, links: { report: `/v1/research/${id}/report` } } });
    // Another key's secret does not verify it, and a body changed on the way does not either.
    const other = await get<{ secret: string }>(B, '/v1/webhooks/secret');
    expect(other.secret).not.toBe(secret);
    expect(() => new Webhook(other.secret).verify(hook.body, hook.headers as Record<string, string>)).toThrow();
    expect(() => new Webhook(secret).verify(hook.body.replace('done', 'fail'), hook.headers as Record<string, string>)).toThrow();

    const log = await get<{ url: string; deliveries: { ok: boolean; status: number; attempt: number }[] }>(A, `/v1/research/${id}/webhooks`);
    expect(log.url).toBe(receiver.url('/done'));
    expect(log.deliveries).toMatchObject([{ ok: true, status: 204, attempt: 1, retrying: false, type: 'run.done' }]);
    // The log is the owner's: another key gets 404, as for every route of the run.
    expect((await fetch(`${stack.coordinator.url}/v1/research/${id}/webhooks`, { headers: { authorization: `Bearer ${B}` } })).status).toBe(404);
  });

  it('retries with backoff until the receiver takes it, logging every attempt under one webhook-id', async () => {
    receiver.answer = (h) => (h.path === '/flaky' && receiver.on('/flaky').length < 3 ? 503 : 204);
    const { id } = await a.submit({ topic: TOPIC, webhook: { url: receiver.url('/flaky') } });
    expect(await a.waitForEnd(id)).toBe('done');
    await waitFor(() => receiver.on('/flaky').length >= 3, 30_000, 'three attempts');
    await sleep(1500);
    const hooks = receiver.on('/flaky');
    expect(hooks).toHaveLength(3);
    expect(new Set(hooks.map((h) => h.headers['webhook-id']))).toEqual(new Set([`${id}.webhook.done`]));
    const log = await get<{ deliveries: { ok: boolean; status: number; attempt: number; retrying: boolean; at: string }[] }>(A, `/v1/research/${id}/webhooks`);
    expect(log.deliveries.map((d) => [d.attempt, d.status, d.ok, d.retrying])).toEqual([
      [1, 503, false, true],
      [2, 503, false, true],
      [3, 204, true, false],
    ]);
    // Exponential backoff from 200 ms: the second wait is longer than the first.
    const [t1, t2, t3] = log.deliveries.map((d) => Date.parse(d.at));
    expect(t2! - t1!).toBeGreaterThanOrEqual(200);
    expect(t3! - t2!).toBeGreaterThanOrEqual(400);
  });

  it('does not follow a redirect: a 3xx is a failed attempt', async () => {
    receiver.answer = (h) => (h.path === '/moved' ? 302 : 204);
    const { id } = await a.submit({ topic: TOPIC, webhook: { url: receiver.url('/moved') } });
    expect(await a.waitForEnd(id)).toBe('done');
    await waitFor(async () => (await get<{ deliveries: unknown[] }>(A, `/v1/research/${id}/webhooks`)).deliveries.length >= 4, 30_000, 'four attempts');
    const log = await get<{ deliveries: { status: number; error: string; retrying: boolean }[] }>(A, `/v1/research/${id}/webhooks`);
    expect(log.deliveries.every((d) => d.status === 302 && /redirects are not followed/.test(d.error))).toBe(true);
    expect(log.deliveries.at(-1)!.retrying).toBe(false);
    expect(receiver.received.filter((h) => h.path === '/elsewhere')).toHaveLength(0);
  });

  it('refuses loopback, private, link-local, special-purpose IPv6 and plain-http targets that are not allow-listed, creating no run', async () => {
    const before = (await get<{ runs: unknown[] }>(A, '/v1/research')).runs.length;
    const refused: [string, RegExp][] = [
      [`http://127.0.0.1:${receiver.port + 1}/hook`, /must use https/],
      ['http://example.com/hook', /must use https/],
      [`https://127.0.0.1:${receiver.port + 1}/hook`, /^webhook host 127\.0\.0\.1 is not a public address: private, loopback, link-local/],
      // A name is refused without telling what it resolves to.
      ['https://localhost/hook', /^webhook host localhost resolves to an address that is not public: private, loopback, link-local or otherwise special-purpose \(docs\/webhooks\.md lists the ranges\)$/],
      ['https://[::1]/hook', /host ::1 is not a public address/],
      ['https://169.254.169.254/latest/meta-data', /host 169\.254\.169\.254 is not a public address/],
      ['https://10.0.0.7/hook', /host 10\.0\.0\.7 is not a public address/],
      // IPv6 forms outside global unicast: local-use NAT64 (RFC 8215), IPv4-compatible, site-local, discard-only (RFC 6666).
      [`https://[64:ff9b:1::7f00:1]:${receiver.port}/hook`, /host 64:ff9b:1::7f00:1 is not a public address/],
      [`https://[::127.0.0.1]:${receiver.port}/hook`, /host ::7f00:1 is not a public address/],
      ['https://[fec0::1]/hook', /host fec0::1 is not a public address/],
      ['https://[100::1]/hook', /host 100::1 is not a public address/],
      ['https://[::ffff:169.254.169.254]/hook', /host ::ffff:a9fe:a9fe is not a public address/],
      ['https://user:pw@example.com/hook', /user name or password/],
      ['ftp://example.com/hook', /http\(s\) URL/],
    ];
    for (const [url, reason] of refused) {
      const res = await post(A, { topic: TOPIC, webhook: { url } });
      expect(res.status, url).toBe(400);
      expect(((await res.json()) as { message: string }).message, url).toMatch(reason);
    }
    expect((await get<{ runs: unknown[] }>(A, '/v1/research')).runs.length).toBe(before);
  });
});
