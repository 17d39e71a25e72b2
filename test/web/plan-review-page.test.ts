/** Plan review from the page: the proposed plan as fields to edit, a refusal shown with its reason, the edited plan dispatched; feedback in words revises it. */
import type { Plan, Run, SubagentTask } from '@orrery/protocol';
import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';
import { ROOT } from '../support/test-env';
import { launchChromium, watchedPage, type WatchedPage } from '../support/web-page';

describe('reviewing the plan from the page', () => {
  let stack: Stack;
  let browser: Browser;
  let w: WatchedPage;
  beforeAll(async () => {
    [stack, browser] = await Promise.all([startStack('web-plan-review', { workers: 1 }), launchChromium()]);
    w = await watchedPage(browser);
  });
  afterAll(async () => {
    if (w) expect(await w.trouble()).toEqual({ csp: [], errors: [], dialogs: [] });
    await browser?.close();
    await stack?.stop();
  });

  /** Asks with plan review from the ask form; the run waits with its proposed plan on the page. */
  async function askWithReview(page: WatchedPage['page']): Promise<{ id: string; proposed: Plan }> {
    await page.goto(`${stack.coordinator.url}/#/`);
    await page.getByLabel('Question or topic').fill('The Kestrel River');
    await page.getByLabel('Let me review the plan before it runs').check();
    await page.getByLabel('Question or topic').press('Enter');
    await page.waitForURL(/#\/runs\//);
    await page.locator('#plan-review-panel').waitFor({ timeout: 30_000 });
    const id = /#\/runs\/([0-9a-f-]{36})/.exec(page.url())![1]!;
    const proposed = ((await (await fetch(`${stack.coordinator.url}/v1/research/${id}`)).json()) as Run).proposedPlan!;
    return { id, proposed };
  }

  it('shows the plan editable, shows why an overlapping edit is refused, and dispatches the edited plan', async () => {
    const { page } = w;
    const { id, proposed } = await askWithReview(page);
    expect(await page.locator('.plan-subtopic').count()).toBe(proposed.subtopics.length);
    await page.screenshot({ path: resolve(ROOT, 'docs/images/plan-review.png'), fullPage: true });

    const scoped = proposed.subtopics.map((s, i) => ({ s, i })).filter(({ s }) => s.facetTerms.length > 0);
    const [a, b] = scoped;
    await page.locator(`#plan-${b!.i}-scope`).fill(a!.s.facetTerms.join(', '));
    await page.locator(`#plan-${b!.i}-exclude`).fill('');
    await page.locator('#plan-dispatch').click();
    await expect.poll(() => page.locator('#plan-status').textContent(), { timeout: 10_000 }).toMatch(/Not dispatched: .*overlap/);
    await w.shot('plan-review-refused');

    // Put the scope back, drop the last subtopic, rewrite the first query.
    await page.locator(`#plan-${b!.i}-scope`).fill(b!.s.facetTerms.join(', '));
    await page.locator(`#plan-${b!.i}-exclude`).fill(b!.s.excludeTerms.join(', '));
    const last = proposed.subtopics.length - 1;
    await page.locator(`#plan-${last}-keep`).uncheck();
    await page.locator('#plan-0-query').fill('salmon cooperative cold storage');
    await page.locator('#plan-dispatch').click();
    await expect.poll(async () => ((await (await fetch(`${stack.coordinator.url}/v1/research/${id}`)).json()) as Run).status, { timeout: 30_000 }).toBe('done');

    const done = (await (await fetch(`${stack.coordinator.url}/v1/research/${id}`)).json()) as Run;
    const kept = proposed.subtopics.slice(0, last);
    expect(done.rounds[0]!.subtopicIds).toEqual(kept.map((s) => s.id));
    const round1 = (await stack.jobs('subagents'))
      .filter((j) => j.id!.startsWith(`${id}.r1.`))
      .map((j) => j.data as Extract<SubagentTask, { kind: 'search' }>)
      .sort((x, y) => x.taskId.localeCompare(y.taskId, 'en', { numeric: true }));
    expect(round1.map((t) => t.query)).toEqual(['salmon cooperative cold storage', ...kept.slice(1).map((s) => s.query)]);
  });

  it('sends feedback in words, shows the revised plan, and dispatches it', async () => {
    const { page } = w;
    const { id, proposed } = await askWithReview(page);
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

  it('asks a follow-up from the box under the report; the new run links to its parent', async () => {
    const { page } = w;
    const parent = await stack.client.submit({ topic: 'The Kestrel River' });
    expect(await stack.client.waitForEnd(parent.id)).toBe('done');
    await page.goto(`${stack.coordinator.url}/#/runs/${parent.id}/report`);
    await page.locator('#followup-form').waitFor();
    await page.getByLabel(/starts from this run/).fill('How did the Harlow Dam change the salmon?');
    await page.screenshot({ path: resolve(ROOT, 'docs/images/followup.png'), fullPage: true });
    await page.locator('#followup-submit').click();
    await page.waitForURL((u) => /#\/runs\/[0-9a-f-]{36}$/.test(u.hash) && !u.hash.includes(parent.id));
    const childId = /#\/runs\/([0-9a-f-]{36})/.exec(page.url())![1]!;
    expect(await stack.client.waitForEnd(childId)).toBe('done');
    expect((await stack.client.run(childId)).parentId).toBe(parent.id);
    expect((await stack.client.run(parent.id)).followups).toEqual([childId]);
  });

  it('takes a webhook URL on the ask form, and shows why a loopback one is refused', async () => {
    const { page } = w;
    await page.goto(`${stack.coordinator.url}/#/`);
    await page.getByLabel('Question or topic').fill('The Kestrel River');
    await page.getByLabel('Webhook').fill('https://127.0.0.1:9/hook');
    await page.getByLabel('Question or topic').press('Enter');
    await expect.poll(() => page.locator('#ask-error').textContent(), { timeout: 10_000 }).toMatch(/webhook host 127\.0\.0\.1 is not a public address: private, loopback, link-local/);
    await page.screenshot({ path: resolve(ROOT, 'docs/images/webhook-refused.png'), fullPage: false });
    expect(page.url()).not.toMatch(/#\/runs\//);
  });
});
