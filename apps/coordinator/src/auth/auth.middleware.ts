import { Injectable, Logger, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { isBoardPath } from './board-mount';
import { isPagePath } from '../web/web-page';
import { refuseUnavailable } from './service-unavailable';
import { ApiKeys } from './api-keys';
import { AuthFailures } from './auth-failures';

/**
 * Routes anyone may call; a valid key there still resolves its principal (admins see more). The web page's own
 * files are among them: they hold no data, and a browser loads them before it has a key to send.
 */
const OPEN_PATHS = new Set(['/healthz', '/readyz']);
const isOpen = (path: string) => OPEN_PATHS.has(path) || isPagePath(path);

/**
 * Resolves the caller once per request into `req.principal`, for every surface mounted after it: the REST API,
 * SSE, Bull Board, the docs, and whatever else is mounted later (MCP, the web page). Wrong keys are counted per
 * client address on every route, open ones too (else an open route that shows an admin more would test keys
 * unmetered); past the limit the address gets 429 without its key being checked. Without Redis the throttle
 * cannot answer, and the request gets 503 rather than going through unmetered.
 */
@Injectable()
export class AuthMiddleware implements NestMiddleware {
  private readonly logger = new Logger('Auth');
  constructor(
    private readonly keys: ApiKeys,
    private readonly failures: AuthFailures,
  ) {}

  use(req: Request, res: Response, next: NextFunction): void {
    this.authenticate(req, res).then(
      (ok) => (ok ? next() : undefined),
      (err: Error) => {
        this.logger.warn(`auth throttle unavailable: ${err.message}`);
        if (!res.headersSent) refuseUnavailable(res, 'authentication');
      },
    );
  }

  private async authenticate(req: Request, res: Response): Promise<boolean> {
    if (this.keys.keyless) {
      req.principal = this.keys.principalOfKey('');
      return true;
    }
    // A browser cannot add a bearer header to the board's page and its calls, but it answers a Basic challenge.
    // The browser then sends those credentials unasked, so only the board takes them, and cross-site writes are
    // refused before any route (sameSiteJsonWrites).
    const board = isBoardPath(req.path);
    const key = this.keys.keyOfHeader(req.headers.authorization, { basic: board });
    // An open route asked without a key needs nothing from Redis: health checks answer while an address is blocked.
    if (key === undefined && isOpen(req.path)) return true;
    const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const standing = await this.failures.standing(address);
    const principal = key === undefined ? undefined : this.keys.principalOfKey(key);
    if (standing.blockedFor) {
      // A key that worked from this address while it was failing goes on working, so a client that shares the
      // address with a misconfigured one is not locked out; any other key gets 429, right or wrong, after the same
      // look-up, so the answer's timing does not tell either.
      const vouched = await this.failures.vouched(address, principal?.id ?? 'no-such-key');
      if (!(principal && vouched)) {
        res.status(429).set('Retry-After', String(standing.blockedFor)).json({ statusCode: 429, error: 'Too Many Requests', message: `too many failed authentications from this address; retry in ${standing.blockedFor} s` });
        return false;
      }
    }
    if (principal) {
      req.principal = principal;
      if (standing.failures) await this.failures.vouch(address, principal.id);
      return true;
    }
    await this.failures.record(address);
    res
      .status(401)
      .set('WWW-Authenticate', board ? 'Basic realm="Orrery board: any user name, your API key as the password", charset="UTF-8"' : 'Bearer')
      .json({ statusCode: 401, error: 'Unauthorized', message: board ? 'a valid API key is required: Authorization: Bearer <key>, or Basic with the key as the password' : 'a valid API key is required: Authorization: Bearer <key>' });
    return false;
  }
}
