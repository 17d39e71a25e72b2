import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';

/** A body larger than this counts as large (as does one of unknown length). Every request schema but the judge's fits far below. */
export const LARGE_BODY_BYTES = 64 * 1024;
/** Large requests of one key waiting for their turn, past which the next gets 429. */
export const LARGE_BODIES_WAITING_PER_KEY = 16;

interface KeyLine {
  running: number;
  waiting: Array<() => void>;
}

/**
 * At most QUOTA_CONCURRENT_LARGE_BODIES requests with a large body per key are read, parsed and answered at once in
 * this process; the others wait in line with their bodies unread (so unparsed), and past LARGE_BODIES_WAITING_PER_KEY
 * get 429. One key's parallel 1 MB calls then take turns on the event loop instead of filling it, and other keys'
 * requests are answered between them. Mounted after authentication and before the body parser.
 */
@Injectable()
export class LargeBodiesMiddleware implements NestMiddleware {
  private readonly lines = new Map<string, KeyLine>();

  constructor(@Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const principal = req.principal;
    if (!principal || !isLarge(req)) return next();
    const id = principal.id;
    let line = this.lines.get(id);
    if (!line) this.lines.set(id, (line = { running: 0, waiting: [] }));
    const start = (): void => {
      line.running++;
      res.once('close', () => this.finished(id, line));
      next();
    };
    if (line.running < this.config.QUOTA_CONCURRENT_LARGE_BODIES) return start();
    if (line.waiting.length >= LARGE_BODIES_WAITING_PER_KEY) {
      res.status(429).set('Retry-After', '1').json({
        statusCode: 429,
        error: 'Too Many Requests',
        message: `this key has ${line.running} requests with a body over ${LARGE_BODY_BYTES / 1024} KiB in progress and ${line.waiting.length} waiting, its limit; retry in 1 s`,
        retryAfter: 1,
      });
      return;
    }
    line.waiting.push(start);
    // A client that gives up while waiting leaves the line.
    res.once('close', () => {
      const i = line.waiting.indexOf(start);
      if (i >= 0) line.waiting.splice(i, 1);
    });
  }

  /** A key's large requests in progress and waiting (for tests and metrics). */
  inLine(id: string): { running: number; waiting: number } {
    const line = this.lines.get(id);
    return { running: line?.running ?? 0, waiting: line?.waiting.length ?? 0 };
  }

  private finished(id: string, line: KeyLine): void {
    line.running--;
    const next = line.waiting.shift();
    if (next) return next();
    if (line.running === 0) this.lines.delete(id);
  }
}

const isLarge = (req: Request): boolean => {
  const length = req.headers['content-length'];
  if (length !== undefined) return Number(length) > LARGE_BODY_BYTES;
  return req.headers['transfer-encoding'] !== undefined;
};
