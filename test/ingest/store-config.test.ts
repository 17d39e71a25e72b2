import { describe, expect, it } from 'vitest';
import { spawnApp, waitFor } from '../support/service-processes';
import { uniquePrefix } from '../support/test-env';

describe('passage store settings are checked at startup', () => {
  it.each(['coordinator', 'subagents'] as const)('the %s refuses to start with a bad CORPUS_STORE_SCHEMA, naming it', { timeout: 30_000 }, async (app) => {
    const proc = spawnApp(app, { QUEUE_PREFIX: uniquePrefix('store-config'), PORT: '0', CORPUS_STORE: 'postgres://postgres@127.0.0.1:5432/test', CORPUS_STORE_SCHEMA: 'Not-A-Schema' });
    try {
      await waitFor(() => proc.child.exitCode !== null, 20_000, `the ${app} to exit`);
      expect(proc.child.exitCode).not.toBe(0);
      expect(proc.output()).toMatch(/CORPUS_STORE_SCHEMA/);
    } finally {
      await proc.kill('SIGKILL');
    }
  });
});
