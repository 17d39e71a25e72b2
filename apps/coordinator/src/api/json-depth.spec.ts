import { describe, expect, it } from 'vitest';
import { jsonDepthExceeds } from './json-depth';

const bytes = (s: string) => Buffer.from(s);

describe('jsonDepthExceeds', () => {
  it('counts arrays and objects, not brackets inside strings or escaped quotes', () => {
    expect(jsonDepthExceeds(bytes('{"a":[{"b":[1]}]}'), 4)).toBe(false);
    expect(jsonDepthExceeds(bytes('{"a":[{"b":[1]}]}'), 3)).toBe(true);
    expect(jsonDepthExceeds(bytes('{"topic":"[[[[[[[[ \\" [[[[["}'), 1)).toBe(false);
  });
  it('stops at the cap on a megabyte of nesting', () => {
    expect(jsonDepthExceeds(bytes('['.repeat(1 << 20)), 32)).toBe(true);
    expect(jsonDepthExceeds(bytes(`${'['.repeat(32)}${']'.repeat(32)}`), 32)).toBe(false);
  });
});
