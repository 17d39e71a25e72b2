/**
 * The report page's HTML, Word and PDF downloads in Chromium, behind API_KEYS: each is fetched with the key in its
 * header (a plain link would carry none), saved under the question's name, and opens as its reader's tools read it.
 */
import type { Report } from '@orrery/protocol';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docxText, htmlText, pdfText, squash } from '../support/report-files';
import { waitFor } from '../support/service-processes';
import { type Stack, startStack } from '../support/stack';
import { newApiKey, ROOT } from '../support/test-env';
import { launchChromium, watchedPage, type WatchedPage } from '../support/web-page';

const KEY = newApiKey();
const OTHER_KEY = newApiKey();
const QUESTION = 'How is the Kestrel River managed?';

describe('report downloads on the page', () => {
  let stack: Stack;
  let browser: Browser;
  let w: WatchedPage;
  let id: string;
  let report: Report;
  const as = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startStack('web-exports', { workers: 1, env: { API_KEYS: `${KEY},${OTHER_KEY}`, HOST: '127.0.0.1' } }), launchChromium()]);
    w = await watchedPage(browser);
    ({ id } = (await (await fetch(`${stack.coordinator.url}/v1/research`, { method: 'POST', headers: as, body: JSON.stringify({ topic: QUESTION }) })).json()) as { id: string });
    const status = async () => ((await (await fetch(`${stack.coordinator.url}/v1/research/${id}`, { headers: as })).json()) as { status: string }).status;
    await waitFor(async () => (await status()) === 'done', 60_000, 'the run');
    report = (await (await fetch(`${stack.coordinator.url}/v1/research/${id}/report`, { headers: as })).json()) as Report;
  }, 120_000);
  afterAll(async () => {
    if (w) expect(await w.trouble()).toEqual({ csp: [], errors: [], dialogs: [] });
    await browser?.close();
    await stack?.stop();
  });

  it('downloads the report as HTML, Word and PDF with the key, named after the question', async () => {
    const { page } = w;
    const requests: Request[] = [];
    page.on('request', (r) => requests.push(r));
    await page.goto(`${stack.coordinator.url}/#/runs/${id}/report`);
    await page.getByLabel('API key', { exact: true }).fill(KEY);
    await page.getByLabel('API key', { exact: true }).press('Enter');
    await page.locator('#report-title').waitFor();
    expect(await page.getByRole('group', { name: 'Download the report to hand on' }).getByRole('button').allTextContents()).toEqual(['HTML', 'Word', 'PDF']);

    const fetchFile = async (format: string, name: string) => {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: `Download as ${name}` }).click()]);
      expect(download.suggestedFilename()).toBe(`how-is-the-kestrel-river-managed.${format}`);
      await page.locator('#report-action-status', { hasText: `Downloaded the report as ${name}.` }).waitFor();
      return readFileSync((await download.path())!);
    };
    const quotes = report.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations.map((c) => c.quote).filter((q): q is string => !!q)));
    expect(quotes.length).toBeGreaterThan(0);

    const html = htmlText((await fetchFile('html', 'HTML')).toString('utf8'));
    expect(html).toContain(`<h1>${report.title}</h1>`);
    for (const q of quotes) expect(html).toContain(q.replace(/\s+/g, ' '));
    for (const s of report.sources) expect(html).toContain(`(${s.id})`);

    const docx = await fetchFile('docx', 'Word');
    expect(docx.subarray(0, 2).toString()).toBe('PK');
    expect(docxText(docx)).toContain(report.title);

    const pdf = await fetchFile('pdf', 'PDF');
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdfText(pdf)).toContain(squash(report.title));
    await page.screenshot({ path: resolve(ROOT, 'docs/images/exports.png'), fullPage: false });

    // Each file came from the REST route, the key in the Authorization header and never in the address.
    const files = requests.filter((r) => /\/report\?format=(html|docx|pdf)$/.test(r.url()));
    expect(files.map((r) => new URL(r.url()).search)).toEqual(['?format=html', '?format=docx', '?format=pdf']);
    for (const r of files) expect((await r.allHeaders()).authorization).toBe(`Bearer ${KEY}`);
    for (const r of requests) expect(r.url()).not.toContain(KEY);
  });

  it('refuses the file to a key that does not own the run, says so, and leaves the button usable', async () => {
    const { page } = w;
    // The tab's key changed under the drawn report: the download goes out with the other key and meets REST's ownership.
    await page.evaluate((key) => sessionStorage.setItem('orrery.apiKey', key), OTHER_KEY);
    const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/report?format=pdf')), page.getByRole('button', { name: 'Download as PDF' }).click()]);
    expect(response.status()).toBe(404);
    await page.locator('#report-action-status', { hasText: /^Could not download: .*not found/ }).waitFor();
    expect(await page.getByRole('button', { name: 'Download as PDF' }).isEnabled()).toBe(true);
  });
});
