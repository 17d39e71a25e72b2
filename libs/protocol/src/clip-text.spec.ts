import { describe, expect, it } from 'vitest';
import { clipText } from '@orrery/protocol';

describe('clipText', () => {
  it('never leaves half a surrogate pair, and cuts plain text exactly', () => {
    const text = 'ab😀cd';
    expect(clipText(text, 3)).toBe('ab');
    expect(clipText(text, 4)).toBe('ab😀');
    expect(clipText(text, 2)).toBe('ab');
    expect(clipText(text, 99)).toBe(text);
    // encodeURIComponent throws on a lone surrogate.
    for (let n = 0; n <= text.length; n++) expect(() => encodeURIComponent(clipText(text, n))).not.toThrow();
  });
});
