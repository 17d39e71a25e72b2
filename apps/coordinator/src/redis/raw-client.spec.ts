import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../../../../test/support/source-files';

const ROOT = `${__dirname}/..`;

/** The files that hold the raw Redis client: each key space's repository, and the services still to move behind one. */
const REPOSITORIES = [
  'auth/auth-failures.ts',
  'corpora/corpora.module.ts',
  'events/run-events.service.ts',
  'events/stream-leases.ts',
  'judge/deployment-judge-switch.ts',
  'ledger/ledger.store.ts',
  'mcp/judge-call-log.service.ts',
  'queues/fleet-gate.ts',
  'quotas/quota-store.ts',
  'redis/redis.module.ts',
  'runs/run-index.ts',
  'runs/run-store.ts',
  'watches/watch-store.ts',
  'webhooks/webhook-log.ts',
];
const STILL_TO_MOVE = ['api/health.controller.ts', 'breaker/provider-outage-watch.service.ts', 'events/event-follower.service.ts', 'webhooks/webhook-secrets.service.ts'];

describe('the raw Redis client', () => {
  it('is injected into repositories only (and the few services not yet behind one; nothing may join them)', () => {
    const holders = sourceFiles(ROOT)
      .filter((f) => /@Inject\(REDIS\)|inject: \[REDIS/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f))
      .sort();
    expect(holders).toEqual([...REPOSITORIES, ...STILL_TO_MOVE].sort());
  });
});
