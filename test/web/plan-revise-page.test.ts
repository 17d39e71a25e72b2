/** Plan review in words from the page: feedback typed, the revised plan drawn again with the years it leaves out, then dispatched. */
import type { Run } from '@orrery/protocol';
import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';
import { ROOT } from '../support/test-env';
import { launchChromium, watchedPage, type WatchedPage } from '../support/web-page';

describe('revising the plan in words from the page', () => {
  let stack: Stack;
  let browser: Browser;
  let w: WatchedPage;
  beforeAll(async () => {
    [stack, browser] = await Promise.all([startStack('web-plan-revise', { workers: 1 }), launchChromium()]);
    w = await watchedPage(browser);
  });
  afterAll(async () => {
    if (w) expect(await w.trouble()).toEqual({ csp: [], errors: [], dialogs: [] });
    await browser?.close();
    await stack?.stop();
  });

  it('sends the feedback, shows the revised plan, and dispatches it', async () => {
    const { page } = w;
    await page.goto(`${stack.coordinator.url}/#/`);
    await page.getByLabel('Question or topic').fill('The Kestrel River');
    await page.getByLabel('Let me review the plan before it runs').check();
    await page.getByLabel('Question or topic').press('Enter');
    await page.waitForURL(/#\/runs\//);
    await page.locator('#plan-review-panel').waitFor({ timeout: 30_000 });
    const id = /#\/runs\/([0-9a-f-]{36})/.exec(page.url())![1]!;
    const proposed = ((await (await fetch(`${stack.coordinator.url}/v1/research/${id}`)).json()) as Run).proposedPlan!;

    await page.getByLabel('Or say what to change').fill('leave out the 1800s; add tariffs');
    await page.locator('#plan-revise').click();
    await page.locator('#plan-years').waitFor({ timeout: 30_000 });
    expect(await page.locator('#plan-years').textContent()).toBe('Every search leaves out 1800–1899.');
    expect(await page.locator('.plan-subtopic').count()).toBe(proposed.subtopics.length + 1);
    expect(await page.locator('.plan-subtopic[data-subtopic="tariffs"]').count()).toBe(1);
    await page.screenshot({ path: resolve(ROOT, 'docs/images/plan-revise.png'), fullPage: true });

    await page.locator('#plan-dispatch').click();
    await expect.poll(async () => ((await (await fetch(`${stack.coordinator.url}/v1/research/${id}`)).json()) as Run).status, { timeout: 60_000 }).toBe('done');
    const done = (await (await fetch(`${stack.coordinator.url}/v1/research/${id}`)).json()) as Run;
    expect(done.rounds[0]!.subtopicIds).toContain('tariffs');
    expect(done.plan!.excludeYears).toEqual([{ from: 1800, to: 1899 }]);
  });
});
