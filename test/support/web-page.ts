import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { launchChromium } from '../../bench/support/chromium';
import { ROOT } from './test-env';

export { launchChromium };

/** Where the browser tests write their screenshots (gitignored); SCREENSHOTS_DIR moves it. */
export const SCREENSHOTS_DIR = resolve(ROOT, process.env.SCREENSHOTS_DIR ?? 'test-output/screenshots');

/** A page with what a test asserts on besides the DOM: CSP violations, alert/confirm dialogs, script errors. */
export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  dialogs: string[];
  errors: string[];
  /** Everything that went wrong on the page so far: all three empty on a page that behaves. */
  trouble(): Promise<{ csp: string[]; errors: string[]; dialogs: string[] }>;
  shot(name: string, options?: { fullPage?: boolean }): Promise<void>;
}

export async function watchedPage(browser: Browser, options: BrowserContextOptions = {}): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  const page = await context.newPage();
  const dialogs: string[] = [];
  const errors: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  page.on('pageerror', (e) => errors.push(e.message));
  // Recorded by the test harness, not the page: CDP injects this before any page script, CSP or not.
  await context.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  const cspViolations = () => page.evaluate(() => (window as unknown as { __csp: string[] }).__csp ?? []);
  return {
    context,
    page,
    dialogs,
    errors,
    trouble: async () => ({ csp: await cspViolations(), errors: [...errors], dialogs: [...dialogs] }),
    shot: async (name, o = {}) => {
      await page.screenshot({ path: resolve(SCREENSHOTS_DIR, `${name}.png`), fullPage: o.fullPage ?? true });
    },
  };
}
