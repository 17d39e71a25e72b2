import { describe, expect, it } from 'vitest';
import { forTerminal, jsonForTerminal } from './terminal-text';

const BIDI = '\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069';
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('forTerminal', () => {
  it('removes escape sequences, control characters and bidi overrides, keeping line breaks and text', () => {
    const hostile = 'a\u001b[2J\u001b[31mred\u001b[0m\u001b]0;title\u0007 b\u0000c\u009b31m d\u202eevil\u2066\nnext\tline';
    const out = forTerminal(hostile);
    expect(out).not.toMatch(RAW);
    expect(out).toContain('red');
    expect(out).toContain('\nnext\tline');
  });
  it('removes every bidirectional control, marks included', () => {
    expect(forTerminal(`a${BIDI}b`)).toBe('ab');
  });
  it('leaves ordinary text, in any script, as it is', () => {
    for (const s of ['Kestrel River floods', '日本のエネルギー政策', 'Eagles \u{1F985}', 'café – naïve', 'مرحبا بالعالم', 'שלום']) expect(forTerminal(s)).toBe(s);
  });
});

describe('jsonForTerminal', () => {
  it('escapes bidi controls, C1 controls and line separators, and parses back to the same value', () => {
    const value = { topic: `evil\u202eflip ${BIDI} csi\u009b31m del\u007f ls\u2028ps\u2029`, nested: [{ title: '\u202dover\u202c' }], n: 3 };
    const out = jsonForTerminal(value);
    expect(out).not.toMatch(RAW);
    expect(out).not.toMatch(/[\u2028\u2029]/);
    expect(out).toContain('evil\\u202eflip');
    expect(JSON.parse(out)).toEqual(value);
  });
  it('is JSON.stringify for ordinary data', () => {
    const value = { topic: '日本のエネルギー政策 – café', quote: 'He said "no"\n', list: [1, null, true] };
    expect(jsonForTerminal(value)).toBe(JSON.stringify(value, null, 2));
  });
});
