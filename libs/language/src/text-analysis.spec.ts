import { describe, expect, it } from 'vitest';
import { STEM_CACHE_WORDS, stemCacheSize, stemWord } from './text-analysis';

describe('stemWord', () => {
  it('memoizes stems in a cache of bounded size: a corpus of endless distinct words does not grow it past the bound', () => {
    expect(stemWord('running')).toBe('run');
    for (let i = 0; i <= STEM_CACHE_WORDS; i++) stemWord(`zq${i.toString(36)}`);
    expect(stemCacheSize()).toBeLessThanOrEqual(STEM_CACHE_WORDS);
    expect(stemCacheSize()).toBeGreaterThan(0);
    // Started afresh, the same stems.
    expect(stemWord('running')).toBe('run');
    expect(stemWord('hovered')).toBe('hover');
  }, 120_000);
});
