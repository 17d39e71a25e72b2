import { afterEach, describe, expect, it, vi } from 'vitest';

describe('the worker processors', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('read no config when imported: their worker options come from the validated config at startup', async () => {
    vi.stubEnv('SUBAGENT_LOCK_MS', '5');
    vi.stubEnv('JUDGE', 'maybe');
    await expect(import('./subagent-tasks.processor')).resolves.toHaveProperty('SubagentTasksProcessor');
    await expect(import('../ingest/ingest.processor')).resolves.toHaveProperty('IngestProcessor');
  });
});
