/** A run in needs_review, answered from the page: its summary, then Continue with extra budget, or Stop. */
import type { Run } from '@orrery/protocol';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';
import { launchChromium, watchedPage, type WatchedPage } from '../support/web-page';

describe('answering a review from the page', () => {
  let stack: Stack;
  let browser: Browser;
  let w: WatchedPage;
  beforeAll(async () => {
    // Six planned subtopics; s3 and s6 always come back empty, so six tasks leave coverage at 4/6, below the 0.8 target.
    [stack, browser] = await Promise.all([
      startStack('web-review', { workers: 1, env: { SIMULATED_SUBTOPICS: '6', SIMULATED_EMPTY_EVERY: '3', SIMULATED_ROUNDS: '2' }, workerEnv: { SUBAGENT_CONCURRENCY: '4', SIMULATED_LATENCY_MS: '200' } }),
      launchChromium(),
    ]);
    w = await watchedPage(browser);
  });
  afterAll(async () => {
    if (w) expect(await w.trouble()).toEqual({ csp: [], errors: [], dialogs: [] });
    await browser?.close();
    await stack?.stop();
  });

  const run = (id: string) => fetch(`${stack.coordinator.url}/v1/research/${id}`).then((r) => r.json() as Promise<Run>);
  const decisions = (id: string) => fetch(`${stack.coordinator.url}/v1/research/${id}/decisions`).then((r) => r.json() as Promise<{ decisionType: string; signals: Record<string, unknown> }[]>);

  async function pausedRun(topic: string): Promise<string> {
    const { page } = w;
    await page.goto(`${stack.coordinator.url}/#/`);
    await page.getByLabel('Question or topic').fill(topic);
    await page.getByLabel('Engine').selectOption('simulated');
    await page.getByLabel('Max tasks').fill('6');
    await page.getByLabel('Question or topic').press('Enter');
    await page.waitForURL(/#\/runs\//);
    await page.locator('#review-panel').waitFor({ timeout: 30_000 });
    return /#\/runs\/([0-9a-f-]{36})/.exec(page.url())![1]!;
  }

  it('shows what is covered and missing and the budget used, and Continue with extra budget resumes the run to done', async () => {
    const { page } = w;
    const id = await pausedRun('renewable energy storage overview');
    const paused = await run(id);
    expect(paused.status).toBe('needs_review');
    expect(await page.locator('#run-status').textContent()).toBe('needs review');
    expect(await page.locator('#review-panel .question').textContent()).toBe(paused.review!.question);
    const missing = await page.locator('#review-missing li').allTextContents();
    expect(missing).toEqual(paused.review!.missing.map((m) => `${m.title ?? m.id}: ${m.status === 'thin' ? 'thin' : 'gap'}, ${m.evidenceCount} ${m.evidenceCount === 1 ? 'finding' : 'findings'}`));
    expect(missing.length).toBe(2);
    expect(await page.locator('#review-covered li').count()).toBe(paused.review!.covered.length);
    expect(await page.locator('#review-budget').textContent()).toContain(`${paused.review!.budgetUsed.tasks} ${paused.review!.budgetUsed.tasks === 1 ? 'task' : 'tasks'},`);
    // Keyboard: the panel takes focus when it appears.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('review-title');
    await w.shot('14-needs-review');

    await page.getByLabel('Extra tasks').fill('4');
    await page.getByLabel('Extra rounds').fill('0');
    await page.getByRole('button', { name: 'Continue with extra budget' }).click();
    await page.locator('#run-status.status-done').waitFor({ timeout: 30_000 });
    expect(await page.locator('#review-panel').count()).toBe(0);
    const done = await run(id);
    expect(done.budget.maxTasks).toBe(paused.budget.maxTasks + 4);
    expect(done.rounds.length).toBe(2);
    const human = (await decisions(id)).find((d) => d.decisionType === 'human-decision');
    expect(human?.signals.action).toBe('continue');
    expect(await page.locator('#decision-timeline li[data-decision-type="human-decision"][data-level="L3"]').count()).toBe(1);
    await w.shot('15-review-continued-done');
  });

  it('Stop writes the report from what is there, listing the gaps', async () => {
    const { page } = w;
    const id = await pausedRun('renewable energy grid overview');
    await page.getByRole('button', { name: 'Stop and write the report' }).click();
    await page.locator('#run-status.status-done').waitFor({ timeout: 30_000 });
    const done = await run(id);
    expect(done.rounds.length).toBe(1);
    expect((await decisions(id)).find((d) => d.decisionType === 'human-decision')?.signals.action).toBe('stop');
    await page.locator('#report-link').click();
    await page.locator('.report-coverage li').first().waitFor();
    expect(await page.locator('.report-coverage li').count()).toBe(2);
  });
});
