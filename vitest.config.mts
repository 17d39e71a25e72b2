import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

const root = dirname(fileURLToPath(import.meta.url));
const src = (p: string) => resolve(root, p);

export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: {
    alias: {
      '@orrery/protocol': src('libs/protocol/src/index.ts'),
      '@orrery/decisions': src('libs/decisions/src/index.ts'),
      '@orrery/engines': src('libs/engines/src/index.ts'),
      '@orrery/runtime': src('libs/runtime/src/index.ts'),
    },
  },
  test: {
    include: ['libs/**/src/**/*.spec.ts', 'apps/**/src/**/*.spec.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Cross-process tests share one Redis and spawn processes: run files one at a time on 2 cores.
    fileParallelism: false,
    // A process that opens the default passage store (its deployment's, under the data root) writes under the temp
    // folder, never into the home folder of whoever runs the tests.
    env: { ORRERY_DATA_DIR: join(tmpdir(), 'orrery-test-data') },
  },
});
