import { afterAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, startCoordinatorProcess } from '../support/service-processes';
import { dropPrefix, FIXTURE_CORPUS, newApiKey, uniquePrefix } from '../support/test-env';

const KEY = newApiKey();

describe('the webhook secret across coordinator replicas, WEBHOOK_SECRET unset', () => {
  const prefix = uniquePrefix('whsecret');
  const env = { QUEUE_PREFIX: prefix, API_KEYS: KEY, CORPORA: `kestrel=${FIXTURE_CORPUS}`, DEFAULT_CORPUS: 'kestrel', WEBHOOK_SECRET_SYNC_MS: '200' };
  const running: ServiceProcess[] = [];
  const start = async () => {
    const p = await startCoordinatorProcess(env);
    running.push(p);
    return p;
  };
  const secretOf = async (c: { url: string }) => {
    const res = await fetch(`${c.url}/v1/webhooks/secret`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { secret: string }).secret;
  };
  afterAll(async () => {
    await Promise.all(running.map((p) => p.kill('SIGTERM')));
    await dropPrefix(prefix);
  });

  it('warns at startup, and a coordinator restarted after Redis lost its data signs with the secret a live replica kept', async () => {
    const [live, other] = [await start(), await start()];
    for (const c of [live, other]) expect(c.output()).toMatch(/WEBHOOK_SECRET is unset: webhook signing secrets derive from one kept in Redis/);
    const secret = await secretOf(live);
    expect(await secretOf(other)).toBe(secret);

    // Redis loses the deployment's data; one replica restarts while the other runs on.
    await dropPrefix(prefix);
    await other.kill('SIGTERM');
    const restarted = await start();
    expect(await secretOf(restarted)).toBe(secret);
    expect(await secretOf(live)).toBe(secret);
    expect(restarted.output()).not.toMatch(/made a new one/);
  });
});
