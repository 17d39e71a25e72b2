/** With API_KEYS set: the page's calls without the key get 401, the page asks for the key once per session, never puts it in a URL. */
import type { Browser, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';
import { newApiKey } from '../support/test-env';
import { launchChromium, watchedPage } from '../support/web-page';

const KEY = newApiKey();
const OTHER_KEY = newApiKey();

describe('the page behind API_KEYS', () => {
  let stack: Stack;
  let browser: Browser;
  beforeAll(async () => {
    // These tests fail to authenticate on purpose, more often than the per-address throttle allows by default.
    [stack, browser] = await Promise.all([startStack('web-auth', { workers: 1, env: { API_KEYS: `${OTHER_KEY},${KEY}`, HOST: '127.0.0.1', SSE_MAX_STREAMS_PER_KEY: '1', AUTH_FAILURES_PER_MINUTE: '1000' }, workerEnv: { SIMULATED_LATENCY_MS: '1500' } }), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('serves the page files without a key (they hold no data), and every API route only with one', async () => {
    const url = stack.coordinator.url;
    for (const path of ['/', '/index.html', '/assets/main.js', '/assets/styles.css']) expect((await fetch(`${url}${path}`)).status, path).toBe(200);
    for (const path of ['/v1/corpora', '/v1/research', '/v1/research/00000000-0000-4000-8000-000000000000/coverage', '/v1/research/00000000-0000-4000-8000-000000000000/sources/x', '/queues']) {
      expect((await fetch(`${url}${path}`)).status, path).toBe(401);
      expect((await fetch(`${url}${path}`, { headers: { authorization: 'Bearer wrong' } })).status, path).toBe(401);
      expect((await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${KEY}` } })).status, path).not.toBe(401);
    }
    // A query string or an encoded dot segment that mentions the page's paths is no way round the key.
    expect((await fetch(`${url}/v1/corpora?/assets/`)).status).toBe(401);
    expect((await fetch(`${url}/assets/%2e%2e/v1/corpora`)).status).not.toBe(200);
  });

  it('keeps what the page reads of a run to the key that owns it: another key gets 404 and does not list it', async () => {
    const url = stack.coordinator.url;
    const as = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
    const { id } = (await (await fetch(`${url}/v1/research`, { method: 'POST', headers: as(KEY), body: JSON.stringify({ topic: 'How is the Kestrel River managed?' }) })).json()) as { id: string };
    for (const path of [`/v1/research/${id}/coverage`, `/v1/research/${id}/sources/kr-dams-05`]) expect((await fetch(`${url}${path}`, { headers: as(OTHER_KEY) })).status, path).toBe(404);
    expect((await fetch(`${url}/v1/research/${id}/coverage`, { headers: as(KEY) })).status).toBe(200);
    const listed = async (key: string, query = '') => ((await (await fetch(`${url}/v1/research${query}`, { headers: as(key) })).json()) as { runs: { id: string }[] }).runs.map((r) => r.id);
    expect(await listed(KEY)).toContain(id);
    expect(await listed(OTHER_KEY)).not.toContain(id);
    const status = ((await (await fetch(`${url}/v1/research/${id}`, { headers: as(KEY) })).json()) as { status: string }).status;
    expect(await listed(OTHER_KEY, `?status=${status}`)).toEqual([]);
  });

  it('gets 401 without the key and asks for it; with it, runs research; keeps it for the session only, never in a URL', async () => {
    const w = await watchedPage(browser);
    const { page } = w;
    const requests: Request[] = [];
    page.on('request', (r) => requests.push(r));

    const refused = page.waitForResponse((r) => r.url().endsWith('/v1/corpora'));
    await page.goto(`${stack.coordinator.url}/`);
    expect((await refused).status()).toBe(401);
    await page.getByLabel('API key', { exact: true }).waitFor();
    expect(await page.locator('.key-form [role="alert"]').textContent()).toMatch(/needs an API key/);
    // One refused call brings the prompt up: each 401 counts against the address's failed-authentication allowance.
    await page.waitForTimeout(500);
    const refusedCalls = await Promise.all(requests.map(async (r) => (await r.response())?.status()));
    expect(refusedCalls.filter((status) => status === 401)).toHaveLength(1);
    await w.shot('16-key-prompt');

    await page.getByLabel('API key', { exact: true }).fill('wrong-key');
    await page.getByLabel('API key', { exact: true }).press('Enter');
    await page.locator('.key-form [role="alert"]', { hasText: 'refused the key' }).waitFor();

    await page.getByLabel('API key', { exact: true }).fill(KEY);
    await page.getByRole('button', { name: 'Use this key' }).click();
    await page.locator('#corpus:not([disabled])').waitFor();
    await page.getByLabel('Question or topic').fill('How is the Kestrel River managed?');
    await page.getByLabel('Question or topic').press('Enter');
    await page.locator('#run-status.status-done').waitFor({ timeout: 30_000 });
    await page.locator('#report-link').click();
    await page.locator('button.cite').first().click();
    await page.locator('#citation-mark').waitFor();

    // Every API call carried the key in its header and nowhere else; the events stream too.
    const apiCalls = requests.filter((r) => new URL(r.url()).pathname.startsWith('/v1/'));
    expect(apiCalls.some((r) => r.url().endsWith('/events'))).toBe(true);
    for (const r of requests) expect(r.url(), r.url()).not.toContain(KEY);
    const authorized = await Promise.all(apiCalls.map(async (r) => (await r.allHeaders()).authorization));
    expect(authorized.filter((a) => a === `Bearer ${KEY}`).length).toBeGreaterThan(0);
    expect(authorized.slice(authorized.indexOf(`Bearer ${KEY}`)).every((a) => a === `Bearer ${KEY}`)).toBe(true);
    expect(page.url()).not.toContain(KEY);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);

    // A reload keeps it (session storage); a new session asks again.
    await page.reload();
    await page.locator('#report-title').waitFor();
    expect(await page.locator('#api-key').count()).toBe(0);
    const fresh = await watchedPage(browser);
    await fresh.page.goto(page.url());
    await fresh.page.getByLabel('API key', { exact: true }).waitFor();
    await fresh.context.close();

    // Forgetting it asks again.
    await page.getByRole('button', { name: 'Forget the API key' }).click();
    await page.getByLabel('API key', { exact: true }).waitFor();
    expect(await w.trouble()).toEqual({ csp: [], errors: [], dialogs: [] });
    await w.context.close();
  });

  it('waits for a stream place when the key has none free (429), and follows the run once one frees', async () => {
    const url = stack.coordinator.url;
    const created = await fetch(`${url}/v1/research`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ topic: 'a slow simulated topic about locks', engine: 'simulated' }) });
    expect(created.status).toBe(202);
    const { id } = (await created.json()) as { id: string };
    // Held until the first tab has let its place go: a run that ended first would leave no stream to wait for.
    await stack.queues.subagents.pause();
    const tab = async () => {
      const w = await watchedPage(browser);
      // Recorded from the start: the refusal can come before the test gets to wait for it.
      const eventStatuses: number[] = [];
      w.page.on('response', (r) => {
        if (new URL(r.url()).pathname.endsWith('/events')) eventStatuses.push(r.status());
      });
      await w.page.goto(`${url}/#/runs/${id}`);
      await w.page.getByLabel('API key', { exact: true }).fill(KEY);
      await w.page.getByLabel('API key', { exact: true }).press('Enter');
      return { ...w, eventStatuses };
    };
    const first = await tab();
    await first.page.locator('#connection[data-state="live"]').waitFor();
    const second = await tab();
    await expect.poll(() => second.eventStatuses, { timeout: 30_000 }).toContain(429);
    await second.page.locator('#connection[data-state="reconnecting"]').waitFor();
    await first.context.close();
    await stack.queues.subagents.resume();
    await second.page.locator('#connection[data-state="live"], #connection[data-state="ended"]').waitFor({ timeout: 20_000 });
    await second.page.locator('#run-status.status-done').waitFor({ timeout: 30_000 });
    expect(await second.trouble()).toEqual({ csp: [], errors: [], dialogs: [] });
    await second.context.close();
  });
});
