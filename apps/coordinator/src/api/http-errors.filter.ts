import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { PassageStoreUnavailableError } from '@orrery/passages';
import type { Response } from 'express';
import { QuotaExceededError } from '../quotas/quota-exceeded.error';
import { RedisUnavailableError } from '../runs/runs.service';

const isRedisDown = (err: unknown) =>
  err instanceof RedisUnavailableError ||
  (err instanceof Error && /ECONNREFUSED|MaxRetriesPerRequest|Connection is closed|Stream isn't writeable|ETIMEDOUT|enableOfflineQueue/i.test(`${err.name} ${err.message}`));

/** Clear JSON errors: 4xx as thrown, Redis and passage-store outages as 503, anything else as 500 without internals. */
@Catch()
export class HttpErrorsFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');
  catch(err: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) return;
    if (err instanceof HttpException) {
      if (err instanceof QuotaExceededError) res.set('Retry-After', String(Math.max(1, Math.ceil(err.retryAfterSeconds))));
      const body = err.getResponse();
      res.status(err.getStatus()).json(typeof body === 'string' ? { statusCode: err.getStatus(), message: body } : body);
      return;
    }
    if (err instanceof PassageStoreUnavailableError) {
      // What the driver said (the store's address) is for this log only.
      this.logger.warn(`passage store: ${err.detail}`);
      res.status(503).set('Retry-After', '5').json({ statusCode: 503, error: 'Service Unavailable', message: `${err.message}; nothing was done, try again shortly` });
      return;
    }
    if (isRedisDown(err)) {
      res.status(503).json({ statusCode: 503, error: 'Service Unavailable', message: 'Redis is unavailable; nothing was created. Try again shortly.' });
      return;
    }
    this.logger.error((err as Error)?.stack ?? String(err));
    res.status(500).json({ statusCode: 500, error: 'Internal Server Error', message: 'internal error' });
  }
}
