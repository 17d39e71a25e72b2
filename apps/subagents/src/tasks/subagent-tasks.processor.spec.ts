import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

describe('the worker processors', () => {
  // Evaluated afresh here, whichever spec the same worker ran before (the unit project shares modules across files).
  beforeEach(() => vi.resetModules());
  afterEach(() => vi.unstubAllEnvs());

  it('read no config when imported: their worker options come from the validated config at startup', async () => {
    vi.stubEnv('SUBAGENT_LOCK_MS', '5');
    vi.stubEnv('JUDGE', 'maybe');
    await expect(import('./subagent-tasks.processor')).resolves.toHaveProperty('SubagentTasksProcessor');
    await expect(import('../ingest/ingest.processor')).resolves.toHaveProperty('IngestProcessor');
  });
});
