/**
 * The itemised bill of a whole ENGINE=anthropic run against the fake Messages API (issue 47, item 1): by phase, by
 * model, web searches and fetches, and the cache's saving, on REST (the run and the list), the CLI's client, MCP's
 * research_status, /metrics per key, the report's footer, and the page (its screenshot is docs/images/bill.png). Each
 * phase's dollars are held against the published prices of the requests of the roles that phase is made of.
 */
import type { Bill, RunSummary } from '@orrery/protocol';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeMessagesApi } from '../support/fake-messages-api';
import { publishedCost } from '../support/fake-published-prices';
import { researchScript } from '../support/fake-research-script';
import { type Stack, startStack } from '../support/stack';
import { ROOT } from '../support/test-env';
import { launchChromium } from '../support/web-page';

/** Which phase each role's requests are billed to. */
const PHASE_OF_ROLE: Record<string, string> = {
  planner: 'plan',
  'coverage-critic': 'plan',
  'gap-finder': 'plan',
  researcher: 'research',
  extractor: 'extraction',
  writer: 'writing',
  citer: 'writing',
  judge: 'judging',
};
const sum = (r: Record<string, { usd: number } | undefined>) => Object.values(r).reduce((s, v) => s + (v?.usd ?? 0), 0);

describe('the bill of a Claude run', () => {
  let api: FakeMessagesApi;
  let stack: Stack;
  let id: string;

  beforeAll(async () => {
    api = await FakeMessagesApi.start();
    api.scriptByRole(researchScript({ rounds: 2, subtopics: 2 }));
    stack = await startStack('bill', {
      workers: 1,
      env: { ENGINE: 'anthropic', ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: api.baseURL, WEB_SEARCH: 'on' },
      workerEnv: { SUBAGENT_CONCURRENCY: '2' },
    });
    ({ id } = await stack.client.submit({ topic: 'How has the Kestrel River changed: floods, dams and fisheries?', corpus: 'kestrel' }));
    const events = await stack.follow(id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
  }, 240_000);
  afterAll(async () => {
    await stack?.stop();
    await api?.close();
  });

  it('GET /v1/research/:id itemises the cost: phases, models and items each add up to the total within a cent, and each phase is what its requests cost', async () => {
    const run = await stack.client.run(id);
    const bill = run.bill;
    console.log(`[bill] ${JSON.stringify(bill)}`);
    expect(bill.totalUsd).toBeCloseTo(run.usage.costUsd, 6);
    expect(bill.totalUsd).toBeGreaterThan(0);
    expect(bill.unattributedUsd).toBe(0);
    expect(Math.abs(sum(bill.byPhase) - bill.totalUsd)).toBeLessThan(0.01);
    expect(Math.abs(sum(bill.byModel) - bill.totalUsd)).toBeLessThan(0.01);
    expect(Math.abs(Object.values(bill.byItem).reduce((s, x) => s + x, 0) - bill.totalUsd)).toBeLessThan(0.01);
    expect(Object.keys(bill.byPhase)).toEqual(expect.arrayContaining(['plan', 'research', 'extraction', 'writing']));

    // Each phase is what the requests of its roles cost at the published prices (issue 27's 2%, or a cent).
    const published: Record<string, number> = {};
    const models: Record<string, number> = {};
    for (const q of api.accepted) {
      const phase = PHASE_OF_ROLE[q.role ?? ''] ?? `unknown role ${q.role}`;
      published[phase] = (published[phase] ?? 0) + publishedCost(q.body.model, q.usage);
      models[q.body.model] = (models[q.body.model] ?? 0) + publishedCost(q.body.model, q.usage);
    }
    expect(Object.keys(bill.byPhase).sort()).toEqual(Object.keys(published).sort());
    for (const [phase, usd] of Object.entries(published)) expect(Math.abs(bill.byPhase[phase as keyof Bill['byPhase']]!.usd - usd), phase).toBeLessThanOrEqual(Math.max(0.01, usd * 0.02));
    for (const [model, usd] of Object.entries(models)) expect(Math.abs(bill.byModel[model]!.usd - usd), model).toBeLessThanOrEqual(Math.max(0.01, usd * 0.02));
    expect(bill.tools.webSearches.count).toBe(api.billedSearches.length);
    expect(bill.tools.webSearches.usd).toBeCloseTo(api.billedSearches.length * 0.01, 6);
    // The run reads most of its input from the cache: that saved money against uncached prices.
    expect(bill.cache.savedUsd).toBeGreaterThan(0);
    expect(bill.cache.uncachedUsd).toBeCloseTo(bill.totalUsd + bill.cache.savedUsd, 4);
  });

  it('GET /v1/research sums the bills of the runs it lists', async () => {
    const list = (await (await fetch(`${stack.coordinator.url}/v1/research`)).json()) as { runs: RunSummary[]; bill: Bill };
    expect(list.runs.map((r) => r.id)).toEqual([id]);
    const run = await stack.client.run(id);
    expect(list.bill).toEqual(run.bill);
  });

  it("the report's footer carries the bill, and /metrics counts dollars per key, phase and model", async () => {
    const markdown = await stack.client.reportMarkdown(id);
    expect(markdown).toMatch(/^- By phase: plan \$\d+\.\d{4}/m);
    expect(markdown).toMatch(/^- Cache: saved \$\d+\.\d{4} against \$\d+\.\d{4} uncached$/m);
    const metrics = await (await fetch(`${stack.coordinator.url}/metrics`)).text();
    const perKey = [...metrics.matchAll(/^orrery_key_cost_usd_total\{key="local",phase="([a-z]+)",model="([^"]+)"\} ([\d.e-]+)$/gm)];
    expect(new Set(perKey.map((m) => m[1]))).toEqual(new Set(Object.keys((await stack.client.run(id)).bill.byPhase)));
    expect(perKey.reduce((s, m) => s + Number(m[3]), 0)).toBeCloseTo((await stack.client.run(id)).usage.costUsd, 5);
    expect(metrics).toMatch(/^orrery_key_cache_saved_usd_total\{key="local"\} 0\.\d+/m);
  });

  it('the page shows the bill', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${stack.coordinator.url}/#/runs/${id}`);
      await page.locator('#run-status.status-done').waitFor({ timeout: 30_000 });
      await page.locator('#bill-phases').waitFor();
      const run = await stack.client.run(id);
      expect(await page.locator('#bill-total').textContent()).toBe(`Total $${run.bill.totalUsd.toFixed(4)}`);
      const phases = await page.locator('#bill-phases th').allTextContents();
      expect(phases).toEqual(Object.keys(run.bill.byPhase));
      expect(await page.locator('#bill-cache').textContent()).toMatch(/^Cache: saved \$\d+\.\d{4}/);
      const card = page.locator('section.bill-card');
      await card.scrollIntoViewIfNeeded();
      await card.screenshot({ path: resolve(ROOT, 'docs', 'images', 'bill.png') });
    } finally {
      await browser.close();
    }
  });
});
