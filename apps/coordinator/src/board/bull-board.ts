import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Job, Queue } from 'bullmq';
import type { NextFunction, Request, Response } from 'express';
import { principalOf } from '../auth/request-principal';

export const BOARD_PATH = '/queues';
export const isBoardPath = (path: string) => path === BOARD_PATH || path.startsWith(`${BOARD_PATH}/`);

const HIDDEN = '(visible to admin keys only)';
const READS = new Set(['GET', 'HEAD']);
/** Reads that show more than a tenant may see: the Redis server's statistics, a job's logs and its flow. */
const ADMIN_READS = [/^\/api\/redis\/stats\/?$/, /^\/api\/queues\/[^/]+\/[^/]+\/(logs|flow)\/?$/];

/** A job as a non-admin sees it on the board: its id, name, state and timings, none of its run's text. */
function redacted(job: Job): Job {
  const view = Object.create(job) as Job;
  view.toJSON = () => ({ ...job.toJSON(), data: HIDDEN, returnvalue: null, failedReason: job.failedReason ? HIDDEN : job.failedReason, stacktrace: [], progress: 0 }) as ReturnType<Job['toJSON']>;
  return view;
}

/** The read-only adapter non-admins get: job payloads, results, errors and logs are other tenants' text. */
class TenantSafeAdapter extends BullMQAdapter {
  constructor(queue: Queue) {
    super(queue, { readOnlyMode: true });
  }
  override async getJob(id: string): Promise<Job | undefined> {
    const job = (await super.getJob(id)) as Job | undefined;
    return job ? redacted(job) : undefined;
  }
  override async getJobs(...args: Parameters<BullMQAdapter['getJobs']>): Promise<Job[]> {
    return ((await super.getJobs(...args)) as Job[]).map(redacted);
  }
  override getJobLogs(): Promise<string[]> {
    return Promise.resolve([]);
  }
}

function board(adapters: BullMQAdapter[]) {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(BOARD_PATH);
  createBullBoard({ queues: adapters, serverAdapter });
  const router = serverAdapter.getRouter() as ReturnType<ExpressAdapter['getRouter']> & { disable?: (setting: string) => void };
  // The board is an Express app of its own, with Express's default X-Powered-By.
  router.disable?.('x-powered-by');
  return router as (req: Request, res: Response, next: NextFunction) => void;
}

/**
 * Bull Board over every Orrery queue, mounted at /queues. Admins (ADMIN_API_KEYS, or the local user in keyless
 * mode) get the full board; any other key a read-only one that hides job payloads, and 403 on every write.
 */
export function bullBoardRouter(queues: Queue[]) {
  const full = board(queues.map((q) => new BullMQAdapter(q)));
  const readOnly = board(queues.map((q) => new TenantSafeAdapter(q)));
  return (req: Request, res: Response, next: NextFunction): void => {
    if (principalOf(req).admin) return full(req, res, next);
    if (!READS.has(req.method) || ADMIN_READS.some((r) => r.test(req.path))) {
      res.status(403).json({ statusCode: 403, error: 'Forbidden', message: 'Bull Board is read-only without an admin key (ADMIN_API_KEYS)' });
      return;
    }
    readOnly(req, res, next);
  };
}
