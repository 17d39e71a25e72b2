import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

describe('CoordinatorStepsProcessor', () => {
  // Evaluated afresh here, whichever spec the same worker ran before (the unit project shares modules across files).
  beforeEach(() => vi.resetModules());
  afterEach(() => vi.unstubAllEnvs());

  it('reads no config when imported: its worker options come from the validated config at startup', async () => {
    vi.stubEnv('COORDINATOR_LOCK_MS', '5');
    await expect(import('./coordinator-steps.processor')).resolves.toHaveProperty('CoordinatorStepsProcessor');
  });
});
