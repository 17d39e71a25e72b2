import { describe, expect, it } from 'vitest';
import { forTerminal } from './terminal-text';

describe('forTerminal', () => {
  it('removes escape sequences, control characters and bidi overrides, keeping line breaks and text', () => {
    const hostile = 'a\u001b[2J\u001b[31mred\u001b[0m\u001b]0;title\u0007 b\u0000c\u009b31m d\u202eevil\u2066\nnext\tline';
    const out = forTerminal(hostile);
    expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(out).toContain('red');
    expect(out).toContain('\nnext\tline');
  });
  it('leaves ordinary text, in any script, as it is', () => {
    for (const s of ['Kestrel River floods', '日本のエネルギー政策', 'Eagles \u{1F985}', 'café – naïve']) expect(forTerminal(s)).toBe(s);
  });
});
