import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, sourceFiles } from '../../../test/support/source-files';
import { quoteOccursIn } from './quote';

const TEXT = 'We must  enforce the law at the\tborder. Café';

describe('quoteOccursIn', () => {
  it('lets whitespace and Unicode normalisation differ, nothing else', () => {
    expect(quoteOccursIn('We must enforce the law at the border', TEXT)).toBe(true);
    expect(quoteOccursIn('Cafe\u0301', TEXT)).toBe(true);
    expect(quoteOccursIn('we must enforce the law', TEXT)).toBe(false);
    expect(quoteOccursIn('We must enforce laws', TEXT)).toBe(false);
    expect(quoteOccursIn('   ', TEXT)).toBe(false);
  });
});

const root = REPO_ROOT;

describe('the verbatim-quote rule lives in one place', () => {
  it('no source checks a quote with its own includes()', () => {
    const own = ['apps', 'libs']
      .flatMap((d) => readdirSync(join(root, d)).map((x) => join(root, d, x, 'src')))
      .filter((d) => statSync(d, { throwIfNoEntry: false })?.isDirectory())
      .flatMap((d) => sourceFiles(d))
      .filter((p) => /\.includes\([^)]*quote|quote[^;\n]*\.includes\(/i.test(readFileSync(p, 'utf8')));
    expect(own).toEqual([]);
  });
});
