import type { NextFunction, Request, Response } from 'express';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const refuse = (res: Response, status: number, message: string) =>
  res.status(status).json({ statusCode: status, error: status === 403 ? 'Forbidden' : 'Unsupported Media Type', message });

/** A Host header as RFC 9110 allows it: a name or IPv4 address, or an IPv6 address in brackets, then an optional port. */
const HOST_HEADER = /^(?:\[([0-9a-f:.]+)\]|([^\s:[\]/\\@?#]+))(?::\d{0,5})?$/i;

/**
 * The host name of a Host header, without its port (`[::1]:3000` → `::1`); empty when the header is not of
 * that form, so that `[::1]evil.example` names no host rather than loopback.
 */
export function hostName(host: string | undefined): string {
  const m = HOST_HEADER.exec((host ?? '').trim());
  return m ? (m[1] ?? m[2] ?? '').toLowerCase() : '';
}

/**
 * Keyless mode trusts whoever reaches it, so it must be reached only as itself: a page on another origin can
 * point its own domain at 127.0.0.1 (DNS rebinding), and the browser then sends that domain as Host.
 */
export function loopbackHostOnly(extraHosts: readonly string[]) {
  const allowed = new Set([...LOOPBACK_NAMES, ...extraHosts.map((h) => h.toLowerCase())]);
  return (req: Request, res: Response, next: NextFunction): void => {
    if (allowed.has(hostName(req.headers.host))) return next();
    refuse(res, 403, 'this service answers only requests addressed to localhost (set ALLOWED_HOSTS to add a name)');
  };
}

/**
 * Writes a web page could forge: any that come from another site (its Origin, or Sec-Fetch-Site), and any body
 * that is not JSON, which is what a cross-site form or `text/plain` fetch can send without a CORS preflight. A
 * POST must be JSON even without a body; a bodiless PUT/PATCH/DELETE (Bull Board's buttons) is not a simple
 * request, so a browser preflights it cross-site, and this service answers no preflight.
 */
export function sameSiteJsonWrites() {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (SAFE_METHODS.has(req.method)) return next();
    const origin = req.headers.origin;
    if (origin !== undefined && !sameOrigin(origin, req.headers.host)) return void refuse(res, 403, 'cross-site writes are refused');
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') return void refuse(res, 403, 'cross-site writes are refused');
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if ((req.method === 'POST' || hasBody) && !isJson(req.headers['content-type'])) return void refuse(res, 415, 'writes must be sent as Content-Type: application/json');
    next();
  };
}

function sameOrigin(origin: string, host: string | undefined): boolean {
  try {
    return new URL(origin).host.toLowerCase() === (host ?? '').toLowerCase();
  } catch {
    return false;
  }
}

const isJson = (type: string | undefined) => /^application\/json\s*(;|$)/i.test(type ?? '');
