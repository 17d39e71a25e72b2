import { describe, expect, it } from 'vitest';
import { quoteSpan } from './quote-span.js';

describe('quoteSpan', () => {
  it('finds a verbatim quote', () => {
    const text = 'The dam was built in 1958. It supplied power.';
    expect(quoteSpan(text, 'built in 1958')).toEqual([12, 25]);
  });

  it('finds a quote the server matched with whitespace collapsed and case folded, and maps it back', () => {
    const text = 'Salmon   runs on the\nKestrel River collapsed.';
    const span = quoteSpan(text, 'runs on the kestrel river')!;
    expect(text.slice(span[0], span[1])).toBe('runs on the\nKestrel River');
  });

  it('answers undefined for a quote that is not there', () => {
    expect(quoteSpan('abc', 'xyz')).toBeUndefined();
    expect(quoteSpan('abc', '   ')).toBeUndefined();
  });
});
