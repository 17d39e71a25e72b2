import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../../../../test/support/source-files';

const ROOT = `${__dirname}/..`;

/** The files that hold the raw Redis client: each key space's repository (RedisModule also provides RunKeys and RedisHealth on it). */
const REPOSITORIES = [
  'auth/auth-failures.ts',
  'breaker/outage-waiting-runs.ts',
  'corpora/corpora.module.ts',
  'events/event-reader.ts',
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
  'webhooks/webhook-secret-store.ts',
];

describe('the raw Redis client', () => {
  it('is injected into repositories only', () => {
    const holders = sourceFiles(ROOT)
      .filter((f) => /@Inject\(REDIS\)|inject: \[REDIS/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f))
      .sort();
    expect(holders).toEqual(REPOSITORIES);
  });
});
