/// <reference lib="dom" />
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/chromium';
import { median, percentile, startBenchStack } from '../support/service-stack';

/**
 * The web page's load time against Bull Board's, both served by one coordinator process: first contentful
 * paint from Chromium's paint timing entries, cold (a fresh browser context, so an empty cache) and warm (a
 * reload in that context), sampled alternately so that machine noise hits both. For the page also the time
 * until the recent-runs list shows its rows (data from the API, not just the first paint).
 */
interface Sample {
  fcp: number;
  load: number;
  bytes: number;
  ready?: number;
}

const PAGES = {
  page: { path: '/', ready: '#runs-table tbody tr' },
  board: { path: '/queues', ready: undefined },
} as const;
type Which = keyof typeof PAGES;

async function sample(browser: Browser, base: string, which: Which): Promise<{ cold: Sample; warm: Sample }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const { path, ready } = PAGES[which];
  // Marks the moment the page's data first shows, from inside the page (no round trip to the harness).
  if (ready) {
    await context.addInitScript((selector: string) => {
      const watch = new MutationObserver(() => {
        if (document.querySelector(selector)) {
          performance.mark('bench:ready');
          watch.disconnect();
        }
      });
      document.addEventListener('DOMContentLoaded', () => watch.observe(document.body, { childList: true, subtree: true }));
    }, ready);
  }
  const measure = async (): Promise<Sample> => {
    if (ready) await page.locator(ready).first().waitFor();
    return page.evaluate(async () => {
      const fcp = await new Promise<number>((resolve) => {
        const seen = performance.getEntriesByName('first-contentful-paint')[0];
        if (seen) return resolve(seen.startTime);
        new PerformanceObserver((list) => resolve(list.getEntriesByName('first-contentful-paint')[0]!.startTime)).observe({ type: 'paint', buffered: true });
      });
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
      const bytes = nav.transferSize + resources.reduce((n, r) => n + r.transferSize, 0);
      const mark = performance.getEntriesByName('bench:ready')[0];
      return { fcp, load: nav.loadEventEnd, bytes, ...(mark ? { ready: mark.startTime } : {}) };
    });
  };
  await page.goto(`${base}${path}`, { waitUntil: 'load' });
  const cold = await measure();
  await page.reload({ waitUntil: 'load' });
  const warm = await measure();
  await context.close();
  return { cold, warm };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { samples: { type: 'string', default: '20' }, out: { type: 'string' } } });
  const samples = Number(values.samples);
  const stack = await startBenchStack({ name: 'web', workers: 1, env: { ENGINE: 'simulated' } });
  const browser = await launchChromium();
  const version = browser.version();
  const results: Record<Which, { cold: Sample; warm: Sample }[]> = { page: [], board: [] };
  try {
    // Something to show: finished runs, so the page's table and the board's queues have rows.
    for (let i = 0; i < 3; i++) await stack.client.waitForEnd((await stack.client.submit({ topic: `web page benchmark topic ${i}`, engine: 'simulated' })).id);
    for (const which of ['page', 'board'] as const) await sample(browser, stack.url, which); // warm-up: the server's first requests
    for (let i = 0; i < samples; i++) {
      const order: Which[] = i % 2 ? ['board', 'page'] : ['page', 'board'];
      for (const which of order) results[which].push(await sample(browser, stack.url, which));
    }
  } finally {
    await browser.close();
    await stack.stop();
  }
  const figures = (which: Which, kind: 'cold' | 'warm') => {
    const xs = results[which].map((r) => r[kind]);
    const ready = xs.flatMap((x) => (x.ready === undefined ? [] : [x.ready]));
    return {
      fcpMedian: median(xs.map((x) => x.fcp)),
      fcpP90: percentile(xs.map((x) => x.fcp), 90),
      loadMedian: median(xs.map((x) => x.load)),
      bytesMedian: median(xs.map((x) => x.bytes)),
      ...(ready.length ? { dataShownMedian: median(ready) } : {}),
    };
  };
  const out = {
    samples,
    chromium: version,
    page: { cold: figures('page', 'cold'), warm: figures('page', 'warm') },
    board: { cold: figures('board', 'cold'), warm: figures('board', 'warm') },
    ratio: { cold: figures('page', 'cold').fcpMedian / figures('board', 'cold').fcpMedian, warm: figures('page', 'warm').fcpMedian / figures('board', 'warm').fcpMedian },
  };
  const ms = (x: number | undefined) => (x === undefined ? '' : x.toFixed(0));
  console.log('| page | cache | FCP median ms | FCP p90 ms | load ms | bytes transferred | runs list shown ms |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const which of ['page', 'board'] as const) {
    for (const kind of ['cold', 'warm'] as const) {
      const f = out[which][kind] as ReturnType<typeof figures>;
      console.log(`| ${which === 'page' ? 'web page /' : 'Bull Board /queues'} | ${kind} | ${ms(f.fcpMedian)} | ${ms(f.fcpP90)} | ${ms(f.loadMedian)} | ${f.bytesMedian} | ${ms(f.dataShownMedian)} |`);
    }
  }
  console.log(`\nFCP, web page / Bull Board (medians of ${samples}): cold ${out.ratio.cold.toFixed(2)}x, warm ${out.ratio.warm.toFixed(2)}x`);
  if (values.out) writeFileSync(values.out, `${JSON.stringify(out, null, 2)}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
