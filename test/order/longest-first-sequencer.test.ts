import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DURATIONS_FILE, longestFirst, readDurations } from './longest-first-sequencer.mts';

const ROOT = join(__dirname, '..', '..');
const spec = (file: string, project = 'cross-process') => ({ moduleId: join(ROOT, file), project: { name: project } });

describe('the longest-first order of the test files', () => {
  it('runs the longest recorded files first, a file the record lacks early, the quick ones last', () => {
    const durations = { 'cross-process': { 'test/a.test.ts': 5, 'test/b.test.ts': 140 }, unit: { 'libs/x/src/x.spec.ts': 0.1 } };
    const files = [spec('libs/x/src/x.spec.ts', 'unit'), spec('test/a.test.ts'), spec('test/new.test.ts'), spec('test/b.test.ts')];
    expect(longestFirst(files, durations, ROOT).map((f) => relative(ROOT, f.moduleId))).toEqual(['test/b.test.ts', 'test/new.test.ts', 'test/a.test.ts', 'libs/x/src/x.spec.ts']);
  });

  it('puts the SIGTERM drills, the longest files of a fresh clone, at the front of the suite', () => {
    const durations = readDurations(join(ROOT, DURATIONS_FILE));
    const files = readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => spec(join('test', f)));
    const order = longestFirst(files, durations, ROOT).map((f) => relative(ROOT, f.moduleId));
    expect(order.slice(0, 2).sort()).toEqual(['test/runs/sigterm-drill-held-until-sigterm.test.ts', 'test/runs/sigterm-drill-released-at-exit.test.ts']);
    // Every test file the record knows still exists: a renamed file would otherwise lose its place.
    const known = Object.keys(durations['cross-process'] ?? {}).filter((f) => f.startsWith('test/'));
    expect(known.filter((f) => !files.some((s) => relative(ROOT, s.moduleId) === f))).toEqual([]);
  });
});
