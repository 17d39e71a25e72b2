import { HttpException } from '@nestjs/common';

/** A limit was reached: 429 for one caller's quota, 503 for the service's own bound; always with Retry-After. */
export class QuotaExceededError extends HttpException {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    status: 429 | 503 = 429,
  ) {
    super({ statusCode: status, error: status === 429 ? 'Too Many Requests' : 'Service Unavailable', message, retryAfter: Math.max(1, Math.ceil(retryAfterSeconds)) }, status);
  }
}
