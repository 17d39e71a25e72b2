import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/order/longest-first-sequencer.mts';

const root = dirname(fileURLToPath(import.meta.url));
const src = (p: string) => resolve(root, p);

// Node's on-disk compile cache for the test workers (forked from this process) and every coordinator, worker and CLI
// the tests spawn (test-env's SPAWN_ENV passes it on): each of those processes compiles the same modules otherwise.
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'orrery-test-compile-cache');

// Specs beside the code that need what a unit test does not: real PostgreSQL or Redis, or the built code run in worker
// threads and other processes. They run with the cross-process tests, so `npm run test:unit` stays fast.
const beyondUnit = [
  'libs/corpus-engine/src/profile/prepare-profile.spec.ts',
  'libs/passages/src/store/passage-store.spec.ts',
  'libs/passages/src/store/postgres-passage-store.spec.ts',
  'apps/coordinator/src/webhooks/webhook-secrets.service.spec.ts',
];
const exclude = ['**/node_modules/**', '**/dist/**'];

export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: {
    // Exact names (a package's subpath entry, `@orrery/passages/ingest`, must not match its package's alias).
    alias: [
      ['@orrery/protocol', 'libs/protocol/src/index.ts'],
      ['@orrery/decisions', 'libs/decisions/src/index.ts'],
      ['@orrery/language', 'libs/language/src/index.ts'],
      ['@orrery/engine', 'libs/engine/src/index.ts'],
      ['@orrery/passages', 'libs/passages/src/index.ts'],
      ['@orrery/passages/ingest', 'libs/passages/src/ingest/index.ts'],
      ['@orrery/corpus-engine', 'libs/corpus-engine/src/index.ts'],
      ['@orrery/claude-engine', 'libs/claude-engine/src/index.ts'],
      ['@orrery/engines', 'libs/engines/src/index.ts'],
      ['@orrery/runtime', 'libs/runtime/src/index.ts'],
    ].map(([name, path]) => ({ find: new RegExp(`^${name}$`), replacement: src(path) })),
  },
  test: {
    exclude,
    testTimeout: 60_000,
    // A beforeAll that starts a stack (up to PROCESS_START_MS) and then prepares what its tests share.
    hookTimeout: 240_000,
    // Test files run side by side: each cross-process file keeps to a queue prefix (uniquePrefix), a store file, ports
    // and Redis servers of its own, and most of its time is spent waiting on the processes it started. Two at a time on
    // 2 cores: with three, on cores other suites shared, tests ran past their own 20–90 s deadlines.
    maxWorkers: 2,
    // Longest files first, so that no long file starts when the other worker is nearly done (test/order).
    sequence: { sequencer: LongestFirstSequencer },
    // A process that opens the default passage store (its deployment's, under the data root) writes under the temp
    // folder, never into the home folder of whoever runs the tests.
    env: { ORRERY_DATA_DIR: join(tmpdir(), 'orrery-test-data') },
    projects: [
      // In-process tests beside the code (`npm run test:unit`).
      // Not isolated: a worker imports the libraries once for all the files it runs, not once per file (98 s → 36 s at
      // load 9). A spec that needs a module evaluated afresh resets the module registry itself (vi.resetModules).
      { extends: true, test: { name: 'unit', include: ['libs/**/src/**/*.spec.ts', 'apps/**/src/**/*.spec.ts'], exclude: [...exclude, ...beyondUnit], isolate: false } },
      // Tests that start real coordinator, worker and CLI processes against Redis, PostgreSQL and Chromium.
      { extends: true, test: { name: 'cross-process', include: ['test/**/*.test.ts', ...beyondUnit] } },
    ],
  },
});
