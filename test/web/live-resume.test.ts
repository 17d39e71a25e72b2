/**
 * A dropped event stream: the coordinator serving the page stops mid-run and another takes its place on the
 * same address. The page reconnects with Last-Event-ID, is sent only what it missed, and follows the run to done.
 */
import type { Run } from '@orrery/protocol';
import type { Browser, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, startCoordinatorProcess } from '../support/service-processes';
import { type Stack, startStack } from '../support/stack';
import { FIXTURE_CORPUS } from '../support/test-env';
import { launchChromium, watchedPage } from '../support/web-page';

describe('the live view across a dropped connection', () => {
  let stack: Stack;
  let browser: Browser;
  let replacement: ServiceProcess | undefined;
  beforeAll(async () => {
    [stack, browser] = await Promise.all([
      startStack('web-resume', { workers: 1, env: { SIMULATED_ROUNDS: '2', SHUTDOWN_GRACE_MS: '1000' }, workerEnv: { SIMULATED_LATENCY_MS: '1500', SUBAGENT_CONCURRENCY: '4' } }),
      launchChromium(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await replacement?.kill();
    await stack?.stop();
  });

  it('reconnects with Last-Event-ID to the coordinator that took over, without duplicates, and reaches done', async () => {
    const w = await watchedPage(browser);
    const { page } = w;
    const streams: Request[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/events')) streams.push(r);
    });
    await page.goto(`${stack.coordinator.url}/`);
    await page.getByLabel('Question or topic').fill('a slow simulated topic about deltas');
    await page.getByLabel('Engine').selectOption('simulated');
    await page.getByLabel('Question or topic').press('Enter');
    await page.waitForURL(/#\/runs\//);
    const id = /#\/runs\/([0-9a-f-]{36})/.exec(page.url())![1]!;
    await page.locator('circle.task').first().waitFor();
    await page.locator('#connection[data-state="live"]').waitFor();

    await stack.coordinator.kill('SIGTERM');
    await page.locator('#connection[data-state="reconnecting"]').waitFor();
    await w.shot('17-reconnecting');
    const port = new URL(stack.coordinator.url).port;
    replacement = await startCoordinatorProcess({ QUEUE_PREFIX: stack.prefix, ENGINE: 'corpus', CORPORA: `kestrel=${FIXTURE_CORPUS}`, DEFAULT_CORPUS: 'kestrel', SIMULATED_ROUNDS: '2', PORT: port });

    await page.locator('#run-status.status-done').waitFor({ timeout: 45_000 });
    await w.shot('18-resumed-done');
    // The first connection asked from the start; a later one named the last event it had.
    expect(await streams[0]!.headerValue('last-event-id')).toBeNull();
    const resumed = await Promise.all(streams.slice(1).map((r) => r.headerValue('last-event-id')));
    expect(resumed.some((v) => v !== null && /^\d+-\d+$/.test(v))).toBe(true);

    // Nothing doubled: each task once, each decision once.
    const run = (await (await fetch(`${stack.coordinator.url}/v1/research/${id}`)).json()) as Run;
    const tasks = await page.locator('circle.task').evaluateAll((els) => els.map((e) => e.getAttribute('data-task-id')));
    expect(tasks.sort()).toEqual(run.rounds.flatMap((r) => r.taskIds).sort());
    const decisions = (await (await fetch(`${stack.coordinator.url}/v1/research/${id}/decisions`)).json()) as { decisionType: string }[];
    expect(await page.locator('#decision-timeline li.decision').count()).toBe(decisions.filter((d) => d.decisionType !== 'result-verdict').length);
    expect(await w.trouble()).toEqual({ csp: [], errors: [], dialogs: [] });
    await w.context.close();
  });
});
