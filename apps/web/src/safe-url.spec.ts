import { describe, expect, it } from 'vitest';
import { httpUrl } from './safe-url.js';

describe('httpUrl', () => {
  it('keeps http and https links', () => {
    expect(httpUrl('https://example.org/a?b=1')).toBe('https://example.org/a?b=1');
    expect(httpUrl('http://example.org')).toBe('http://example.org/');
  });

  it('refuses every other scheme, however it is dressed up', () => {
    for (const bad of ['javascript:alert(1)', ' JavaScript:alert(1)', 'java\tscript:alert(1)', 'data:text/html,<b>x</b>', 'vbscript:x', '//evil.example', 'kr-dams-05', undefined, '']) {
      expect(httpUrl(bad), String(bad)).toBeUndefined();
    }
  });
});
