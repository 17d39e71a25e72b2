import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, sourceFiles } from '../../../test/support/source-files';
import { z } from 'zod';
import { envInt, formatZodError, zodIssues } from './validation';

const root = REPO_ROOT;

describe('validation helpers', () => {
  it('tells each issue as path: message, the message alone at the root', () => {
    const r = z.object({ a: z.number(), b: z.object({ c: z.string() }) }).safeParse({ a: 'x', b: { c: 1 } });
    expect(r.success).toBe(false);
    if (r.success) return;
    expect(zodIssues(r.error)).toEqual([expect.stringMatching(/^a: /), expect.stringMatching(/^b\.c: /)]);
    expect(zodIssues(r.error, 1)).toHaveLength(1);
    expect(formatZodError(r.error)).toMatch(/^a: .*; b\.c: /);
    const root = z.number().safeParse('x');
    if (!root.success) expect(zodIssues(root.error)[0]).not.toMatch(/^: /);
  });
  it('reads an integer setting with a default and a floor', () => {
    expect(envInt(5, 1).parse(undefined)).toBe(5);
    expect(envInt(5, 1).parse('7')).toBe(7);
    expect(envInt(5, 1).safeParse('0').success).toBe(false);
  });
  it('is the only formatter of zod issues and the only config int helper in the sources', () => {
    const copies = ['apps', 'libs', 'bench']
      .flatMap((d) => sourceFiles(join(root, d)))
      .filter((p) => !p.endsWith(join('protocol', 'src', 'validation.ts')))
      .flatMap((p) => {
        const text = readFileSync(p, 'utf8');
        return /issues\.(slice\([^)]*\)\.)?map\(\(i\) =>[^)]*i\.path|const int = \(/.test(text) ? [relative(root, p)] : [];
      });
    expect(copies).toEqual([]);
  });
});
