import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import { LongestFirstSequencer } from '../support/longest-first-sequencer.mts';

const ROOT = resolve(__dirname, '..', '..');
const spec = (moduleId: string) => ({ moduleId, project: { config: { root: ROOT } } }) as unknown as TestSpecification;

describe('the longest-first sequencer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orrery-sequencer-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('starts files the table does not know (larger first), then the known ones longest first', async () => {
    writeFileSync(join(dir, 'small-new.test.ts'), 'x');
    writeFileSync(join(dir, 'large-new.test.ts'), 'x'.repeat(1000));
    const files = [
      'test/bench/markov-corpus.test.ts',
      join(dir, 'small-new.test.ts'),
      'test/chaos/redis-cluster.test.ts',
      'test/runs/sigterm-drill-released-at-exit.test.ts',
      join(dir, 'large-new.test.ts'),
    ].map((f) => spec(resolve(ROOT, f)));
    const sorted = await new LongestFirstSequencer({} as Vitest).sort(files);
    expect(sorted.map((s) => s.moduleId.replace(`${ROOT}/`, '').replace(`${dir}/`, ''))).toEqual([
      'large-new.test.ts',
      'small-new.test.ts',
      'test/runs/sigterm-drill-released-at-exit.test.ts',
      'test/chaos/redis-cluster.test.ts',
      'test/bench/markov-corpus.test.ts',
    ]);
  });
});
