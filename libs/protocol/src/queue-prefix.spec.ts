import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, sourceFiles } from '../../../test/support/source-files';
import { loadQueuePrefix } from './queue-prefix';

describe('QueuePrefix', () => {
  it('defaults to orrery and refuses a value that is not one Redis key segment, naming the variable', () => {
    expect(loadQueuePrefix({})).toBe('orrery');
    expect(loadQueuePrefix({ QUEUE_PREFIX: 'blue-1' })).toBe('blue-1');
    expect(() => loadQueuePrefix({ QUEUE_PREFIX: '../elsewhere' })).toThrow(/QUEUE_PREFIX: must be letters/);
    expect(() => loadQueuePrefix({ QUEUE_PREFIX: '' })).toThrow(/QUEUE_PREFIX/);
  });

  it('is the one schema of QUEUE_PREFIX, and no source falls back to a default of its own', () => {
    const copies = ['apps', 'libs', 'bench']
      .flatMap((d) => sourceFiles(join(REPO_ROOT, d)))
      .filter((p) => !p.endsWith(join('protocol', 'src', 'queue-prefix.ts')))
      .flatMap((p) => {
        const text = readFileSync(p, 'utf8');
        return /QUEUE_PREFIX: z\.|QUEUE_PREFIX (\?\?|\|\|) '/.test(text) ? [relative(REPO_ROOT, p)] : [];
      });
    expect(copies).toEqual([]);
  });
});
