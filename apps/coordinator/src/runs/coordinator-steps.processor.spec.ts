import { afterEach, describe, expect, it, vi } from 'vitest';

describe('CoordinatorStepsProcessor', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('reads no config when imported: its worker options come from the validated config at startup', async () => {
    vi.stubEnv('COORDINATOR_LOCK_MS', '5');
    await expect(import('./coordinator-steps.processor')).resolves.toHaveProperty('CoordinatorStepsProcessor');
  });
});
