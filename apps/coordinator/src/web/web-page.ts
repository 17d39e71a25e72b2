import type { NestExpressApplication } from '@nestjs/platform-express';
import type { ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';

/**
 * The page allows only its own scripts, styles and API: no inline script or style, no other origin, no
 * framing. Everything a run holds is drawn as text, and this stops anything that slipped through from running.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The page's own files: `/`, and `/assets/*`. They hold no data (every run, report and corpus name comes from
 * the API, behind the same API keys), so a browser can load them before it has a key to send.
 */
export function isPagePath(path: string): boolean {
  return path === '/' || path === '/index.html' || path.startsWith('/assets/');
}

function pageHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', PAGE_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  // Names are not content-hashed: revalidate every time (an ETag makes that a 304).
  res.setHeader('Cache-Control', 'no-cache');
}

/** Serves the web page (the @orrery/web package, compiled by `tsc -b`) at `/`. */
export function mountWebPage(app: NestExpressApplication): void {
  const root = dirname(require.resolve('@orrery/web/package.json'));
  const options = { setHeaders: pageHeaders, dotfiles: 'ignore' as const, fallthrough: true };
  app.useStaticAssets(join(root, 'dist', 'assets'), { ...options, prefix: '/assets/', index: false });
  app.useStaticAssets(join(root, 'public'), { ...options, index: 'index.html' });
}
