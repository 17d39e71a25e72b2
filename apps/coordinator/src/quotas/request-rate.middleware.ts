import { Inject, Injectable, Logger, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { refuseUnavailable } from '../auth/service-unavailable';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { within } from '../redis/within';
import { QuotaStore } from './quota-store';

/**
 * Requests per key per minute (QUOTA_REQUESTS_PER_MINUTE), on every surface behind the key: REST, SSE, MCP, the
 * board, the docs. Admins and the keyless local user are not counted, nor the open routes a caller reaches
 * without a key. Past the limit: 429 with Retry-After until the key's minute is over; 503 while Redis does not answer.
 */
@Injectable()
export class RequestRateMiddleware implements NestMiddleware {
  private readonly logger = new Logger('RequestRate');

  constructor(
    private readonly counters: QuotaStore,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const limit = this.config.QUOTA_REQUESTS_PER_MINUTE;
    const principal = req.principal;
    if (!limit || !principal || principal.admin) return next();
    within(this.counters.countRequest(principal.id), this.config.REDIS_TIMEOUT_MS, 'request meter').then(
      ({ count, resetsInSeconds }) => {
        if (count <= limit) return next();
        res.status(429).set('Retry-After', String(resetsInSeconds)).json({ statusCode: 429, error: 'Too Many Requests', message: `this key has made ${limit} requests in a minute, its limit; retry in ${resetsInSeconds} s`, retryAfter: resetsInSeconds });
      },
      // A meter that cannot count lets nothing through unmetered.
      (err: Error) => {
        this.logger.warn(`request meter unavailable: ${err.message}`);
        refuseUnavailable(res, 'the request meter');
      },
    );
  }
}
