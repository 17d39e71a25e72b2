/**
 * The web page in headless Chromium against a real coordinator and worker on Redis: ask, watch, read, cancel,
 * reload. Screenshots of each state go to SCREENSHOTS_DIR.
 */
import type { Report, Run } from '@orrery/protocol';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';
import { FIXTURE_CORPUS, ROOT } from '../support/test-env';
import { launchChromium, watchedPage, type WatchedPage } from '../support/web-page';

const HOSTILE_CORPUS = resolve(ROOT, 'test', 'fixtures', 'hostile.jsonl');

describe('the web page', () => {
  let stack: Stack;
  let browser: Browser;
  let w: WatchedPage;
  let doneRun: string;

  beforeAll(async () => {
    [stack, browser] = await Promise.all([
      startStack('web', {
        workers: 1,
        env: { CORPORA: `kestrel=${FIXTURE_CORPUS},hostile=${HOSTILE_CORPUS}` },
        workerEnv: { SIMULATED_LATENCY_MS: '1200', SUBAGENT_CONCURRENCY: '4' },
      }),
      launchChromium(),
    ]);
    w = await watchedPage(browser);
  });
  afterAll(async () => {
    // Whatever each test did, the page never broke its content security policy nor threw.
    if (w) expect(await w.trouble()).toEqual({ csp: [], errors: [], dialogs: [] });
    await browser?.close();
    await stack?.stop();
  });

  const api = <T>(path: string): Promise<T> => fetch(`${stack.coordinator.url}${path}`).then((r) => r.json() as Promise<T>);
  const runIdOf = (url: string) => /#\/runs\/([0-9a-f-]{36})/.exec(url)![1]!;

  it('asks with Enter, shows the spokes and tasks as they come, and reaches done', async () => {
    const { page } = w;
    await page.goto(`${stack.coordinator.url}/`);
    await page.getByLabel('Corpus').locator('option[value="kestrel"]').waitFor({ state: 'attached' });
    expect(await page.getByLabel('Corpus').inputValue()).toBe('kestrel');
    await w.shot('01-ask');

    await page.getByLabel('Question or topic').fill('How is the Kestrel River managed?');
    await page.getByLabel('Question or topic').press('Enter');
    await page.waitForURL(/#\/runs\/[0-9a-f-]{36}$/);
    doneRun = runIdOf(page.url());
    await page.locator('svg.hub-picture .spoke').first().waitFor();
    await page.locator('#run-status.status-done').waitFor({ timeout: 30_000 });
    await page.locator('#connection[data-state="ended"]').waitFor();

    const run = await api<Run>(`/v1/research/${doneRun}`);
    const taskIds = run.rounds.flatMap((r) => r.taskIds).sort();
    // Every task of every round is a dot on its spoke, on its round's ring, filled in with its verdict.
    const dots = await page.locator('svg.hub-picture circle.task').evaluateAll((els) => els.map((e) => ({ id: e.getAttribute('data-task-id')!, state: e.getAttribute('data-state')!, round: Number(e.getAttribute('data-round')) })));
    expect(dots.map((d) => d.id).sort()).toEqual(taskIds);
    expect(dots.every((d) => ['pass', 'partial', 'retry', 'discard', 'failed'].includes(d.state))).toBe(true);
    expect(new Set(dots.map((d) => d.round))).toEqual(new Set(run.rounds.map((r) => r.n)));
    expect(await page.locator('svg.hub-picture .ring').count()).toBe(run.rounds.length);
    const spokes = await page.locator('svg.hub-picture .spoke').evaluateAll((els) => els.map((e) => e.getAttribute('data-spoke-id')));
    expect(spokes).toEqual(expect.arrayContaining(run.plan!.subtopics.map((s) => s.id)));

    // The coverage map comes to say what the API says, per subtopic. The page looks the record and coverage up after
    // the run's last event, so on a loaded machine the done badge can show before that look-up returns.
    const coverage = await api<{ subtopics: { id: string; status: string }[] }>(`/v1/research/${doneRun}/coverage`);
    const coverageMap = () => page.locator('.coverage-map li').evaluateAll((els) => els.map((e) => [e.getAttribute('data-subtopic-id'), e.getAttribute('data-status')]));
    await expect.poll(coverageMap, { timeout: 15_000 }).toEqual(coverage.subtopics.map((s) => [s.id, s.status]));
    await w.shot('02-live-done');

    // The judge's verdicts on the timeline, each with its level, confidence and signals.
    const judge = page.locator('#decision-timeline li[data-decision-type="judge"]').first();
    await expect(judge.locator('.level').textContent()).resolves.toMatch(/^L[0-3]$/);
    await expect(judge.locator('.confidence').textContent()).resolves.toMatch(/confidence \d\.\d\d/);
    await judge.locator('summary').click();
    await expect(judge.locator('.signals dt').allTextContents()).resolves.toContain('coverage');

    // Budget gauges from the run's record.
    const gauge = (id: string) => () => page.locator(`#gauge-${id}-text`).textContent();
    await expect.poll(gauge('tasks'), { timeout: 15_000 }).toBe(`${run.budgetLedger.used.tasks} of ${run.budget.maxTasks}`);
    await expect.poll(gauge('rounds'), { timeout: 15_000 }).toBe(`${run.budgetLedger.roundsStarted} of ${run.budget.maxRounds}`);
    await expect.poll(gauge('cost'), { timeout: 15_000 }).toBe(`$${run.budgetLedger.used.costUsd.toFixed(2)} of $${run.budget.maxCostUsd.toFixed(2)}`);
    expect(await page.locator('#cancel-run').isHidden()).toBe(true);
  });

  it('renders the report, opens a citation with its verified quote highlighted, copies Markdown, downloads JSON', async () => {
    const { page } = w;
    await w.context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.locator('#report-link').click();
    await page.locator('#report-title').waitFor();
    const report = await api<Report>(`/v1/research/${doneRun}/report`);
    expect(await page.locator('#report-title').textContent()).toBe(report.title);
    expect(await page.locator('.report-section').count()).toBe(report.sections.length);
    expect(await page.locator('.report-sources li').count()).toBe(report.sources.length);
    expect(await page.locator('.report-coverage tbody tr').count()).toBe(report.coverage.subtopics.length);
    await w.shot('03-report');

    const citation = report.sections[0]!.paragraphs[0]!.citations[0]!;
    const number = report.sources.findIndex((s) => s.id === citation.sourceId) + 1;
    const button = page.locator('.report-section').first().locator('button.cite').first();
    expect(await button.textContent()).toBe(`[${number}]`);
    await button.click();
    const dialog = page.locator('#citation-dialog');
    await dialog.locator('#citation-mark').waitFor();
    expect(await dialog.locator('#citation-quote').textContent()).toBe(citation.quote);
    expect(await dialog.locator('#citation-mark').textContent()).toBe(citation.quote);
    expect(await dialog.locator('#citation-title').textContent()).toBe(`[${number}] ${report.sources[number - 1]!.title}`);
    await w.shot('04-citation', { fullPage: false });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.classList.contains('cite'))).toBe(true);

    await page.locator('#copy-markdown').click();
    await page.locator('#report-action-status', { hasText: 'Copied' }).waitFor();
    const markdown = await (await fetch(`${stack.coordinator.url}/v1/research/${doneRun}/report?format=markdown`)).text();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(markdown);

    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#download-json').click()]);
    expect(download.suggestedFilename()).toBe(`orrery-report-${doneRun}.json`);
    expect(JSON.parse(readFileSync((await download.path())!, 'utf8'))).toEqual(report);
  });

  it('cancels a run from its live view', async () => {
    const { page } = w;
    await page.goto(`${stack.coordinator.url}/#/`);
    await page.getByLabel('Question or topic').fill('a slow simulated topic about tides');
    await page.getByLabel('Engine').selectOption('simulated');
    await page.getByRole('button', { name: 'Start research' }).click();
    await page.waitForURL(/#\/runs\//);
    const id = runIdOf(page.url());
    // Tasks appear as they are dispatched, before any verdict.
    await page.locator('circle.task[data-state="dispatched"], circle.task[data-state="running"]').first().waitFor();
    await w.shot('05-live-running');
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await page.locator('#run-status.status-cancelled').waitFor();
    expect((await api<Run>(`/v1/research/${id}`)).status).toBe('cancelled');
    await page.locator('#connection[data-state="ended"]').waitFor();
    expect(await page.locator('#cancel-run').isHidden()).toBe(true);
    await w.shot('06-cancelled');
  });

  it('resumes the live view after a reload mid-run, then follows the run to done', async () => {
    const { page } = w;
    await page.goto(`${stack.coordinator.url}/#/`);
    await page.getByLabel('Question or topic').fill('a slow simulated topic about estuaries');
    await page.getByLabel('Engine').selectOption('simulated');
    await page.getByLabel('Question or topic').press('Enter');
    await page.waitForURL(/#\/runs\//);
    const id = runIdOf(page.url());
    await page.locator('circle.task').first().waitFor();
    const before = await page.locator('circle.task').count();

    await page.reload();
    expect(page.url()).toContain(`#/runs/${id}`);
    await page.locator('#connection[data-state="live"], #connection[data-state="ended"]').waitFor();
    await page.locator('circle.task').nth(before - 1).waitFor();
    expect((await api<Run>(`/v1/research/${id}`)).status).not.toBe('done');
    await w.shot('07-reloaded-mid-run');
    await page.locator('#run-status.status-done').waitFor({ timeout: 30_000 });
    const run = await api<Run>(`/v1/research/${id}`);
    const ids = await page.locator('circle.task').evaluateAll((els) => els.map((e) => e.getAttribute('data-task-id')));
    expect(ids.sort()).toEqual(run.rounds.flatMap((r) => r.taskIds).sort());
  });

  it('lists recent runs with status, age, cost and citations, filtered by status', async () => {
    const { page } = w;
    await page.goto(`${stack.coordinator.url}/#/`);
    const row = page.locator(`#runs-table tr[data-run-id="${doneRun}"]`);
    await row.waitFor();
    const cells = await row.locator('td').allTextContents();
    const report = await api<Report>(`/v1/research/${doneRun}/report`);
    expect(cells[0]).toBe('How is the Kestrel River managed?');
    expect(cells[1]).toBe('done');
    expect(cells[2]).toMatch(/ago$/);
    expect(cells[3]).toMatch(/^(\$\d+\.\d\d|<\$0\.01)$/);
    expect(cells[4]).toBe(String(report.sources.length));
    expect(await page.locator('#runs-table tbody tr').count()).toBe(3);
    await w.shot('08-recent-runs');
    await page.getByLabel('Status').selectOption('cancelled');
    await page.locator('#runs-table tbody tr').first().waitFor();
    await expect.poll(() => page.locator('#runs-table tbody tr').evaluateAll((els) => els.map((e) => e.getAttribute('data-status')))).toEqual(['cancelled']);
    await page.getByLabel('Status').selectOption('needs_review');
    await page.getByText('No needs review runs.').waitFor();
  });

  it('shows a topic and sources holding HTML or javascript: links as text: no element, no dialog', async () => {
    const { page } = w;
    const topic = 'Harbor lights <img src=x onerror=alert(1)> [x](javascript:alert(1))';
    await page.goto(`${stack.coordinator.url}/#/`);
    await page.getByLabel('Question or topic').fill(topic);
    await page.getByLabel('Corpus').selectOption('hostile');
    await page.getByLabel('Question or topic').press('Enter');
    await page.waitForURL(/#\/runs\//);
    await page.locator('#run-status.status-done').waitFor({ timeout: 30_000 });
    expect(await page.locator('#run-title').textContent()).toBe(topic);
    await page.locator('#report-link').click();
    await page.locator('#report-title').waitFor();
    expect(await page.locator('.report .topic').textContent()).toBe(`Question: ${topic}`);
    const titles = await page.locator('.report-sources .source-title').allTextContents();
    expect(titles).toEqual(expect.arrayContaining(['[x](javascript:alert(1))', '<img src=x onerror=alert(1)> Harbor lights keepers', 'Harbor lights: lamps <script>alert(1)</script>']));
    // The javascript: address is shown as text, the https one is a link.
    expect(await page.locator('.report-sources code', { hasText: 'javascript:alert(1)' }).count()).toBe(1);
    expect(await page.locator('.report-sources a[href^="https://example.org/"]').count()).toBe(1);
    const hostileCite = page.locator('button.cite[data-source-id="hl-keepers-01"]').first();
    await hostileCite.click();
    await page.locator('#citation-passage mark').waitFor();
    expect(await page.locator('#citation-passage').textContent()).toContain('[x](javascript:alert(1))');
    await w.shot('09-hostile-report', { fullPage: false });
    await page.keyboard.press('Escape');

    const injected = await page.evaluate(() => ({
      img: document.querySelectorAll('img:not(.brand img)').length,
      script: Array.from(document.scripts).filter((s) => !s.src.endsWith('/assets/main.js')).length,
      handlers: Array.from(document.querySelectorAll('*')).filter((el) => Array.from(el.attributes).some((a) => a.name.startsWith('on'))).length,
      jsLinks: Array.from(document.querySelectorAll('a[href]')).filter((a) => /^\s*javascript:/i.test(a.getAttribute('href')!)).length,
      bold: document.querySelectorAll('main b').length,
    }));
    expect(injected).toEqual({ img: 0, script: 0, handlers: 0, jsLinks: 0, bold: 0 });
    expect(w.dialogs).toEqual([]);
  });

  it('is usable by keyboard alone, labels every control, reads at phone width, and follows a dark system theme', async () => {
    const { page } = w;
    await page.goto(`${stack.coordinator.url}/#/`);
    await page.locator('#corpus:not([disabled])').waitFor();
    // Every form control has a label, every button a name.
    const unlabelled = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLInputElement>('input, select, textarea')).filter((c) => !c.labels?.length && !c.getAttribute('aria-label')).map((c) => c.id || c.outerHTML),
    );
    expect(unlabelled).toEqual([]);
    const focusOrder: string[] = [];
    await page.locator('#topic').focus();
    for (let i = 0; i < 11; i++) {
      focusOrder.push(await page.evaluate(() => document.activeElement?.id || document.activeElement?.textContent || ''));
      await page.keyboard.press('Tab');
    }
    expect(focusOrder).toEqual(['topic', 'engine', 'corpus', 'budget-maxTasks', 'budget-maxRounds', 'budget-maxTokens', 'budget-maxWallSeconds', 'budget-maxCostUsd', 'webhook-url', 'review-plan', 'Start research']);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('status-filter');

    // The report by keyboard: Tab to a citation, Enter opens it, Escape closes it.
    await page.goto(`${stack.coordinator.url}/#/runs/${doneRun}/report`);
    await page.locator('#report-title').waitFor();
    for (let i = 0; i < 40 && !(await page.evaluate(() => document.activeElement?.classList.contains('cite'))); i++) await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.locator('#citation-mark').waitFor();
    await page.keyboard.press('Escape');
    await page.locator('#citation-dialog').waitFor({ state: 'hidden' });

    const phone = await watchedPage(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    for (const [path, name, ready] of [
      [`/#/runs/${doneRun}`, '10-phone-live', '#connection[data-state="ended"]'],
      [`/#/runs/${doneRun}/report`, '11-phone-report', '#report-title'],
      ['/#/', '12-phone-ask', '#corpus:not([disabled])'],
    ] as const) {
      await phone.page.goto(`${stack.coordinator.url}${path}`);
      await phone.page.locator(ready).waitFor();
      expect(await phone.page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390);
      await phone.shot(name);
    }
    expect(await phone.trouble()).toEqual({ csp: [], errors: [], dialogs: [] });
    await phone.context.close();

    const background = async (scheme: 'light' | 'dark') => {
      const themed = await watchedPage(browser, { colorScheme: scheme });
      await themed.page.goto(`${stack.coordinator.url}/#/runs/${doneRun}`);
      await themed.page.locator('#connection[data-state="ended"]').waitFor();
      await themed.shot(`13-${scheme}-live`);
      const rgb = await themed.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      await themed.context.close();
      const [r, g, b] = rgb.match(/\d+/g)!.map(Number);
      return (r! + g! + b!) / 3;
    };
    expect(await background('dark')).toBeLessThan(60);
    expect(await background('light')).toBeGreaterThan(200);
  });
});
