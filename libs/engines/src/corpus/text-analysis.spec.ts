import { describe, expect, it } from 'vitest';
import { analyzeTerms, STEM_CACHE_WORDS, stemCacheSize, stemWord, TOKENIZER_RENEW_TEXTS, tokenizerRenewalCount } from './text-analysis';

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

describe('analyzeTerms over a large corpus', () => {
  it('builds its tokenizer afresh every TOKENIZER_RENEW_TEXTS texts (its token cache keeps every distinct token), to the same terms', () => {
    const sample = 'The kernel’s OOM killer picks a process by its oom_score; see /proc/1234/oom_adj and v2.6.36.';
    const before = analyzeTerms(sample);
    const renewals = tokenizerRenewalCount();
    // Distinct tokens, as identifiers and numbers in a large corpus are.
    for (let i = 0; i < TOKENIZER_RENEW_TEXTS; i++) analyzeTerms(`id_${i.toString(36)} ${i * 7}`);
    expect(tokenizerRenewalCount()).toBeGreaterThan(renewals);
    expect(analyzeTerms(sample)).toEqual(before);
  }, 120_000);
});
