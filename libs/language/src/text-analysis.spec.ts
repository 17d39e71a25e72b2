import { describe, expect, it } from 'vitest';
import { analyzeTerms, nounPhrases, STEM_CACHE_WORDS, stemCacheSize, stemWord } from './text-analysis';

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

describe('nounPhrases', () => {
  const surfaces = (text: string): string[] => nounPhrases(text).map((p) => p.surface);

  it('reads a hyphenated compound as one word, keyed by its index terms', () => {
    const phrases = nounPhrases('The Filipinos are making progress toward self-government.');
    expect(phrases.map((p) => p.surface)).toContain('self-government');
    expect(phrases.map((p) => p.surface)).not.toContain('self');
    // A quote that says it holds every stem of its key.
    const key = phrases.find((p) => p.surface === 'self-government')!.key.split(' ');
    expect(key.every((k) => analyzeTerms('self-government').includes(k))).toBe(true);
  });

  it('names the phrase a compound modifies, not the compound alone or its last part', () => {
    const found = surfaces('It reduced the interest-bearing debt and the fourth-class post offices.');
    expect(found).toContain('interest-bearing debt');
    expect(found).toContain('fourth-class post');
    expect(found).not.toContain('bearing debt');
    expect(found).not.toContain('class post');
    expect(found).not.toContain('interest-bearing');
  });

  it('does not join words across a dash typed as a hyphen', () => {
    const found = surfaces('the bank and other corporations-a proposition which none approve');
    expect(found).toContain('corporations');
    expect(found.some((s) => s.includes('corporations-a'))).toBe(false);
  });
});
