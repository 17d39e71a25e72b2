import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import type { NextFunction, Request, Response } from 'express';
import { principalOf } from '../auth/request-principal';
import { BOARD_PATH } from '../auth/board-mount';
import { boardRoute, canonicalBoardPath, encodeBoardPath } from './board-path';
import { TenantBoardAdapter } from './tenant-board-adapter';

const READS = new Set(['GET', 'HEAD']);

/**
 * What a non-admin key may read on the board, compared on the canonical path in lower case; anything else is
 * 403. The page and its static files hold no data; `/api/queues` answers the queues' counts (the tenant
 * adapter lists no job). A tenant follows its own runs through the API, where ownership is checked.
 */
const TENANT_READS: readonly RegExp[] = [/^\/$/, /^\/queue\/[^/]+$/, /^\/static\/.+$/, /^\/api\/queues$/];

function board(adapters: BullMQAdapter[], uiConfig: { hideRedisDetails?: boolean; showWorkers?: boolean } = {}) {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(BOARD_PATH);
  createBullBoard({ queues: adapters, serverAdapter, options: { uiConfig } });
  const router = serverAdapter.getRouter() as ReturnType<ExpressAdapter['getRouter']> & { disable?: (setting: string) => void };
  // The board is an Express app of its own, with Express's default X-Powered-By.
  router.disable?.('x-powered-by');
  return router as (req: Request, res: Response, next: NextFunction) => void;
}

const refuse = (res: Response, status: 400 | 403, message: string) => res.status(status).json({ statusCode: status, error: status === 400 ? 'Bad Request' : 'Forbidden', message });

/**
 * Bull Board over every Orrery queue, mounted at /queues. Admins (ADMIN_API_KEYS, or the local user in keyless
 * mode) get the full board. Any other key gets the reads on TENANT_READS, decided on the canonical path, which
 * is then the path the board routes, so that no spelling of a path reaches a route the check did not see.
 */
export function bullBoardRouter(queues: Queue[]) {
  const full = board(queues.map((q) => new BullMQAdapter(q)));
  const tenant = board(
    queues.map((q) => new TenantBoardAdapter(q)),
    { hideRedisDetails: true, showWorkers: false },
  );
  return (req: Request, res: Response, next: NextFunction): void => {
    if (principalOf(req).admin) return full(req, res, next);
    const canonical = canonicalBoardPath(req.path);
    if (canonical === undefined) return void refuse(res, 400, 'malformed board path');
    if (!READS.has(req.method) || !TENANT_READS.some((r) => r.test(boardRoute(canonical)))) {
      return void refuse(res, 403, 'this part of Bull Board needs an admin key (ADMIN_API_KEYS); other keys see the queues’ counts');
    }
    const query = req.url.indexOf('?');
    req.url = `${encodeBoardPath(canonical)}${query >= 0 ? req.url.slice(query) : ''}`;
    tenant(req, res, next);
  };
}
