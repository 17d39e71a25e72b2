import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Hashing first gives equal-length buffers, so the comparison leaks neither content nor length. */
export function keyMatches(presented: string, keys: readonly Buffer[]): boolean {
  const d = digest(presented);
  let ok = false;
  for (const k of keys) ok = timingSafeEqual(d, k) || ok;
  return ok;
}

/** With API_KEYS set, every route but /healthz and /readyz needs `Authorization: Bearer <key>`. */
export function apiKeyMiddleware(apiKeys: readonly string[]) {
  const keys = apiKeys.map(digest);
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!keys.length || req.path === '/healthz' || req.path === '/readyz') return next();
    const m = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
    if (m && keyMatches(m[1]!.trim(), keys)) return next();
    res.status(401).set('WWW-Authenticate', 'Bearer').json({ statusCode: 401, error: 'Unauthorized', message: 'a valid API key is required: Authorization: Bearer <key>' });
  };
}
