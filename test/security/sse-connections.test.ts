/**
 * SSE cannot exhaust Redis: clients that reset the socket right after asking for a run's events leave no Redis
 * connection behind, live streams share the coordinator's connections, and streams are capped per key and per
 * process. Connections are counted in Redis's CLIENT LIST under an ACL user only this coordinator logs in as.
 */
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, startCoordinatorProcess } from '../support/service-processes';
import { aclUser, dropPrefix, FIXTURE_CORPUS, newApiKey, uniquePrefix } from '../support/test-env';

const KEY = newApiKey();
const OTHER = newApiKey();

describe('SSE and Redis connections', () => {
  const prefix = uniquePrefix('sse');
  let user: Awaited<ReturnType<typeof aclUser>>;
  let coordinator: ServiceProcess & { url: string };
  let runId: string;
  const auth = (key = KEY) => ({ authorization: `Bearer ${key}` });

  beforeAll(async () => {
    user = await aclUser('sse');
    // No workers: the run stays in research, so its stream stays live.
    coordinator = await startCoordinatorProcess({
      REDIS_URL: user.url,
      QUEUE_PREFIX: prefix,
      API_KEYS: `${KEY},${OTHER}`,
      ENGINE: 'simulated',
      CORPORA: `kestrel=${FIXTURE_CORPUS}`,
      SSE_MAX_STREAMS_PER_KEY: '3',
      SSE_MAX_STREAMS: '5',
    });
    const res = await fetch(`${coordinator.url}/v1/research`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: '{"topic":"a run that stays live"}' });
    expect(res.status).toBe(202);
    runId = ((await res.json()) as { id: string }).id;
  });
  afterAll(async () => {
    await coordinator?.kill();
    await user?.drop();
    await dropPrefix(prefix);
  });

  /** Sends the request and resets the socket as soon as it is written. */
  const resetAfterSending = (path: string) =>
    new Promise<void>((resolve) => {
      const url = new URL(coordinator.url);
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${KEY}\r\nAccept: text/event-stream\r\n\r\n`, () => {
          socket.resetAndDestroy();
          resolve();
        });
      });
      socket.on('error', () => resolve());
    });

  it('100 requests reset right after sending leave no Redis connection behind', { timeout: 60_000 }, async () => {
    await sleep(500);
    const before = await user.connections();
    for (let i = 0; i < 100; i++) await resetAfterSending(`/v1/research/${runId}/events`);
    await sleep(3000);
    const after = await user.connections();
    expect(after - before, `connections ${before} → ${after}`).toBeLessThanOrEqual(1);
  });

  it('live streams share the coordinator connections, and each key and the process are capped with 429', { timeout: 60_000 }, async () => {
    const before = await user.connections();
    // Each response is held as well as its controller: fetch cancels the body of a response that is garbage
    // collected unread, which would close its stream and give its place back mid-test.
    const streams: { ctl: AbortController; res: Response }[] = [];
    const open = async (key: string) => {
      const ctl = new AbortController();
      const res = await fetch(`${coordinator.url}/v1/research/${runId}/events`, { headers: auth(key), signal: ctl.signal });
      streams.push({ ctl, res });
      return res;
    };
    try {
      for (let i = 0; i < 3; i++) expect((await open(KEY)).status).toBe(200);
      const fourth = await open(KEY);
      expect(fourth.status).toBe(429);
      expect(Number(fourth.headers.get('retry-after'))).toBeGreaterThan(0);
      // The other key may not follow this run at all: 404, before any cap is counted.
      expect((await open(OTHER)).status).toBe(404);
      // On its own run it is under its key's cap, but the process serves 5 streams at most.
      const created = await fetch(`${coordinator.url}/v1/research`, { method: 'POST', headers: { ...auth(OTHER), 'content-type': 'application/json' }, body: '{"topic":"another live run"}' });
      const otherRun = ((await created.json()) as { id: string }).id;
      const openOther = async () => {
        const ctl = new AbortController();
        const res = await fetch(`${coordinator.url}/v1/research/${otherRun}/events`, { headers: auth(OTHER), signal: ctl.signal });
        streams.push({ ctl, res });
        return res;
      };
      expect((await openOther()).status).toBe(200);
      expect((await openOther()).status).toBe(200);
      const sixth = await openOther();
      expect(sixth.status).toBe(429);
      expect(await sixth.text()).toMatch(/process/);
      await sleep(500);
      // Five live streams: at most the one shared blocking reader more than before.
      expect((await user.connections()) - before).toBeLessThanOrEqual(1);
    } finally {
      for (const s of streams) s.ctl.abort();
    }
    await sleep(1000);
    // Closed streams give their places back.
    const again = await open(KEY);
    expect(again.status).toBe(200);
    streams.at(-1)!.ctl.abort();
  });

  it('a well-formed Last-Event-ID the stream never sent is a 400; one it sent resumes after it', async () => {
    // The run's first event id, from its stream.
    const ctl = new AbortController();
    const first = await fetch(`${coordinator.url}/v1/research/${runId}/events`, { headers: auth(), signal: ctl.signal });
    const reader = first.body!.getReader();
    let text = '';
    while (!/^id: (\d+-\d+)$/m.test(text)) text += new TextDecoder().decode((await reader.read()).value);
    ctl.abort();
    const sent = /^id: (\d+)-(\d+)$/m.exec(text)!;
    const resumed = new AbortController();
    expect((await fetch(`${coordinator.url}/v1/research/${runId}/events`, { headers: { ...auth(), 'last-event-id': `${sent[1]}-${sent[2]}` }, signal: resumed.signal })).status).toBe(200);
    resumed.abort();
    for (const never of [`${sent[1]}-${Number(sent[2]) + 1000}`, `${Number(sent[1]) + 86_400_000}-0`, '18446744073709551615-18446744073709551615']) {
      const res = await fetch(`${coordinator.url}/v1/research/${runId}/events`, { headers: { ...auth(), 'last-event-id': never } });
      expect(res.status, never).toBe(400);
      expect(await res.text()).toMatch(/an event id this stream sent/);
    }
    // Another key learns nothing from it: 404, as for a run that does not exist.
    expect((await fetch(`${coordinator.url}/v1/research/${runId}/events`, { headers: { ...auth(OTHER), 'last-event-id': '1-0' } })).status).toBe(404);
  });

  it('a Last-Event-ID that is no stream id is a 400, not a raw Redis error', async () => {
    const res = await fetch(`${coordinator.url}/v1/research/${runId}/events`, { headers: { ...auth(), 'last-event-id': '99999999999999999999999-0' } });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).not.toMatch(/ERR Invalid|Invalid stream ID/);
    expect(text).toMatch(/Last-Event-ID/);
  });
});
