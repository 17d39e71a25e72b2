import type { Response } from 'express';

/**
 * A guard that needs Redis (the failed-auth throttle, the request meter) and gets no answer refuses the request
 * rather than let it through unguarded; the client retries shortly.
 */
export function refuseUnavailable(res: Response, what: string): void {
  res.status(503).set('Retry-After', '5').json({ statusCode: 503, error: 'Service Unavailable', message: `${what} is unavailable (Redis does not answer); nothing was done, try again shortly` });
}
