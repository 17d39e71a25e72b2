/**
 * The image builds what it copies: every project the Dockerfile's `tsc -b` builds, and every project those
 * reference, lies in a folder the Dockerfile copies (no Docker engine needed to catch a broken build).
 */
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/test-env';

const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');

function references(project: string, seen = new Set<string>()): Set<string> {
  const dir = resolve(ROOT, project);
  if (seen.has(dir)) return seen;
  seen.add(dir);
  const config = JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8')) as { references?: { path: string }[] };
  for (const r of config.references ?? []) references(relative(ROOT, resolve(dir, r.path)), seen);
  return seen;
}

describe('Dockerfile', () => {
  it('copies every project its build compiles', () => {
    const copied = [...dockerfile.matchAll(/^COPY\s+(.+?)\s+\S+$/gm)].flatMap((m) => m[1]!.split(/\s+/)).map((p) => p.replace(/\/$/, ''));
    const command = /tsc -b\b([^&\n]*)/.exec(dockerfile);
    expect(command, 'the Dockerfile builds with tsc -b').not.toBeNull();
    // A bare `tsc -b` builds the root project, which references everything, benchmarks included.
    const build = command![1]!.trim() ? command![1]!.trim().split(/\s+/) : ['.'];
    const projects = [...new Set(build.flatMap((p) => [...references(p)]))].map((d) => relative(ROOT, d));
    const outside = projects.filter((p) => !copied.some((c) => p === c || p.startsWith(`${c}/`)));
    expect(outside).toEqual([]);
    expect(projects).toEqual(expect.arrayContaining(['apps/coordinator', 'apps/subagents']));
  });
});
