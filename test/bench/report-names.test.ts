import { describe, expect, it } from 'vitest';
import { topicSlug, topicSlugs } from '../../bench/coverage/report-names';

describe('report file names', () => {
  it('lower-cases, turns runs of non-alphanumerics into "-" and trims', () => {
    expect(topicSlug('Fantastic Beasts: The Secrets of Dumbledore')).toBe('fantastic-beasts-the-secrets-of-dumbledore');
    expect(topicSlug('  Liga 1 (Indonesia) ')).toBe('liga-1-indonesia');
    expect(topicSlugs('Hurricane Idalia')).toEqual(['hurricane-idalia']);
  });

  it('names a non-ASCII title every way a scorer may read "alphanumeric"', () => {
    expect(topicSlugs('2023 Türkiye–Syria earthquake')).toEqual(['2023-t-rkiye-syria-earthquake', '2023-türkiye-syria-earthquake', '2023-turkiye-syria-earthquake']);
  });
});
