/** `npm run watch`: a watch added, listed with its first run, paused, resumed and deleted from a terminal. */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/service-processes';
import { type Stack, startStack } from '../support/stack';
import { ROOT } from '../support/test-env';

const run = promisify(execFile);
const CLI = resolve(ROOT, 'apps', 'cli', 'dist', 'watch.js');

describe('npm run watch', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('watch-cli', { workers: 1 });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });
  const watch = async (...args: string[]) => (await run(process.execPath, [CLI, ...args], { env: { ...process.env, ORRERY_URL: stack.coordinator.url } })).stdout;

  it('adds, lists, pauses, resumes and deletes a watch', { timeout: 120_000 }, async () => {
    const added = await watch('add', 'The Kestrel River fisheries', '--every', '1d', '--corpus', 'kestrel');
    const id = /^([0-9a-f-]{36}) active every 86400 s corpus kestrel: The Kestrel River fisheries$/m.exec(added)?.[1];
    expect(id, added).toBeDefined();
    await waitFor(async () => / done [0-9a-f-]{36}$/m.test(await watch('list')), 60_000, 'the first run in the list');
    expect(await watch('pause', id!)).toMatch(new RegExp(`^${id} paused`));
    expect(await watch('resume', id!)).toMatch(new RegExp(`^${id} active`));
    expect(await watch('delete', id!)).toBe(`deleted ${id}\n`);
    expect(await watch('list')).toBe('no watches\n');
  });
});
