import { readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../../../test/support/source-files';

/** The hub's folders and which others each imports from (specs left out). */
function folderImports(root: string): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const file of sourceFiles(root)) {
    const from = relative(root, file).split(sep);
    if (from.length < 2) continue;
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(/from '(\.[^']*)'/g)) {
      const to = normalize(join(dirname(relative(root, file)), spec!)).split(sep);
      if (to.length < 2 || to[0] === from[0]) continue;
      if (!edges.has(from[0]!)) edges.set(from[0]!, new Set());
      edges.get(from[0]!)!.add(to[0]!);
    }
  }
  return edges;
}

/** The folders that import each other, directly or round about (Tarjan's strongly connected components of two or more). */
function cycles(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) visit(w);
      if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, low.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = stack.splice(stack.indexOf(v));
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the hub folders', () => {
  it('find cycles between folders', () => {
    const edges = new Map([['a', new Set(['b'])], ['b', new Set(['c'])], ['c', new Set(['a'])], ['d', new Set(['a'])]]);
    expect(cycles(edges)).toEqual([['a', 'b', 'c']]);
  });

  it('import each other in no cycle: a folder imports only those below it', () => {
    expect(cycles(folderImports(__dirname))).toEqual([]);
  });
});
