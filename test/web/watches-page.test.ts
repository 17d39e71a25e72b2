/** Watches from the page: one created with the form, paused and resumed with its buttons, its runs listed with what changed. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/service-processes';
import { type Stack, startStack } from '../support/stack';
import { ROOT } from '../support/test-env';
import { launchChromium, watchedPage, type WatchedPage } from '../support/web-page';

describe('watches on the page', () => {
  const folder = mkdtempSync(join(tmpdir(), 'orrery-watch-page-'));
  writeFileSync(join(folder, 'harbour.md'), '# The harbour of Ossery\n\nFishing boats in the harbour of Ossery land salmon every morning.\n');
  writeFileSync(join(folder, 'ferry.md'), '# Ferries\n\nThe ferry from the harbour of Ossery crosses to Brant twelve times a day.\n');
  let stack: Stack;
  let browser: Browser;
  let w: WatchedPage;
  beforeAll(async () => {
    [stack, browser] = await Promise.all([startStack('web-watches', { workers: 1, env: { INGEST_ROOTS: folder, WATCH_MIN_EVERY_SECONDS: '2' } }), launchChromium()]);
    w = await watchedPage(browser);
  });
  afterAll(async () => {
    if (w) expect(await w.trouble()).toEqual({ csp: [], errors: [], dialogs: [] });
    await browser?.close();
    await stack?.stop();
  });

  const ingest = async () => {
    await fetch(`${stack.coordinator.url}/v1/corpora`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'notes', path: folder }) });
    await waitFor(async () => ((await (await fetch(`${stack.coordinator.url}/v1/corpora/notes`)).json()) as { status: string }).status === 'ready', 60_000, 'the ingest');
  };

  it('creates a watch, pauses and resumes it, and shows what changed', async () => {
    await ingest();
    const { page } = w;
    await page.goto(`${stack.coordinator.url}/#/watches`);
    await page.getByLabel('Question').fill('Salmon at the harbour of Ossery');
    await page.getByLabel('Every (e.g. 15m, 1h, 1d)').fill('1h');
    await page.getByLabel('Corpus').fill('notes');
    await page.locator('#watch-create').click();
    await expect.poll(() => page.locator('.watch-run').count(), { timeout: 60_000 }).toBe(1);
    await expect.poll(() => page.locator('.watch-run').first().textContent(), { timeout: 60_000 }).toMatch(/done · first answer/);

    await page.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => page.locator('.watch .hint').first().textContent()).toMatch(/paused/);
    writeFileSync(join(folder, 'tariffs.md'), '# Tariffs\n\nTariffs on salmon shipped from the harbour of Ossery were raised in 2025.\n');
    await ingest();
    await page.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => page.locator('.watch-run.changed').count(), { timeout: 90_000 }).toBe(1);
    expect(await page.locator('.what-changed').textContent()).toMatch(/^New sources: tariffs\.md > Tariffs \(tariffs\.md#1\)\./);
    await page.screenshot({ path: resolve(ROOT, 'docs/images/watches.png'), fullPage: true });
  });
});
