import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The engine packages' layers, read from their imports: each may import only the packages listed for it (all lower),
 * never a file of another package by path, and the search a subagent runs never reaches ingest code.
 */
const ROOT = resolve(__dirname, '..', '..');
const ALLOWED: Record<string, readonly string[]> = {
  language: ['protocol'],
  engine: ['protocol', 'decisions', 'language'],
  passages: ['protocol', 'language'],
  'corpus-engine': ['protocol', 'decisions', 'engine', 'language', 'passages'],
  'claude-engine': ['protocol', 'decisions', 'engine', 'language'],
  engines: ['protocol', 'decisions', 'engine', 'language', 'passages', 'corpus-engine', 'claude-engine'],
};
/** A search task starts in the corpus engine's spoke; what brings corpora into the store is the write path. */
const SEARCH_START = 'libs/corpus-engine/src/search/corpus-subagent-engine.ts';
const INGEST = [/^libs\/passages\/src\/(ingest|sources)\//, /^libs\/corpus-engine\/src\/index\/(configured-corpus|corpus-registry)\.ts$/, /^libs\/corpus-engine\/src\/profile\/keep-structure\.ts$/];

const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
const specifiers = (file: string): string[] => ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((i) => i.fileName);
const packageOf = (file: string): string | undefined => /^libs\/([^/]+)\//.exec(relative(ROOT, file))?.[1];

/** The source file an import names: relative paths, and `@orrery/<package>[/entry]` to the package's source entry. */
function resolveImport(from: string, spec: string): string | undefined {
  const m = /^@orrery\/([^/]+)(?:\/(.+))?$/.exec(spec);
  const base = spec.startsWith('.') ? join(dirname(from), spec.replace(/\.js$/, '')) : m ? join(ROOT, 'libs', m[1]!, 'src', m[2] ?? '') : undefined;
  if (!base) return undefined;
  return [`${base}.ts`, join(base, 'index.ts')].find((c) => existsSync(c));
}

describe('package layers', () => {
  const files = Object.keys(ALLOWED).flatMap((p) => walk(join(ROOT, 'libs', p, 'src')));

  it('each engine package imports only the packages below it, and no other package’s files by path', () => {
    const breaks: string[] = [];
    for (const file of files) {
      const own = packageOf(file)!;
      for (const spec of specifiers(file)) {
        const named = /^@orrery\/([^/]+)/.exec(spec)?.[1];
        if (named && named !== own && !ALLOWED[own]!.includes(named)) breaks.push(`${relative(ROOT, file)} imports ${spec}`);
        if (spec.startsWith('.')) {
          const target = resolveImport(file, spec);
          if (target && packageOf(target) && packageOf(target) !== own) breaks.push(`${relative(ROOT, file)} reaches into ${relative(ROOT, target)}`);
        }
      }
    }
    expect(breaks).toEqual([]);
  });

  it('a subagent’s search task never imports ingest code', () => {
    const seen = new Set<string>();
    const reached: string[] = [];
    const visit = (file: string, path: string[]): void => {
      const rel = relative(ROOT, file);
      if (seen.has(rel)) return;
      seen.add(rel);
      if (INGEST.some((r) => r.test(rel))) reached.push([...path, rel].join(' -> '));
      for (const spec of specifiers(file)) {
        const target = resolveImport(file, spec);
        if (target && target.startsWith(join(ROOT, 'libs'))) visit(target, [...path, rel]);
      }
    };
    visit(join(ROOT, SEARCH_START), []);
    expect(seen.size).toBeGreaterThan(10);
    expect(reached).toEqual([]);
  });
});
