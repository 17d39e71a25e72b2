import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';

// A test's services keep their default passage store under the test data folder (vitest.config.mts sets
// ORRERY_DATA_DIR), never in the home folder of whoever runs the tests.
describe('spawned services keep their data under ORRERY_DATA_DIR', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('data-dir', { workers: 1 });
  });
  afterAll(async () => stack?.stop());

  it('a run on the configured corpus writes its deployment store there, not under ~/.local/share', async () => {
    const { id } = await stack.client.submit({ topic: 'The Kestrel River' });
    expect((await stack.follow(id)).at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
    expect(process.env.ORRERY_DATA_DIR).toBeTruthy();
    expect(existsSync(join(process.env.ORRERY_DATA_DIR!, stack.prefix, 'passages.sqlite'))).toBe(true);
    expect(existsSync(join(homedir(), '.local', 'share', 'orrery', stack.prefix))).toBe(false);
  });
});
