/**
 * Test files longest first, by the committed table of how long each took (test/file-durations.json), so the long
 * cross-process drills start at once and the short files fill in around them. Vitest's own order needs its duration
 * cache, which a clean clone lacks: it ordered by file size, and the SIGTERM drill (two 4-line files, over two minutes
 * each) started last and ran alone at the end. A file the table does not know yet runs first, larger first.
 * `npm run test:durations` refreshes the table.
 */
import { readFileSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const DURATIONS_FILE = new URL('../file-durations.json', import.meta.url);

/** Seconds a file took, by its path from the repository root. */
export type FileDurations = Record<string, number>;

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const table = JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')) as FileDurations;
    const known = (spec: TestSpecification) => table[relative(spec.project.config.root, spec.moduleId)];
    const size = (spec: TestSpecification) => statSync(spec.moduleId).size;
    const unknown = files.filter((f) => known(f) === undefined).sort((a, b) => size(b) - size(a));
    return [...unknown, ...files.filter((f) => known(f) !== undefined).sort((a, b) => known(b)! - known(a)!)];
  }
}
