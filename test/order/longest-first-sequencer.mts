/**
 * Runs the test files longest first, by the durations of a recorded run (test/order/durations.json). Two files run at
 * a time, and most of the suite's time is in a few cross-process files: one of those started last keeps a worker busy
 * long after the other has run out of files. Vitest orders by its own results cache, which a fresh clone lacks; it
 * then runs the largest files first, and the two SIGTERM drills, four lines each, came last.
 *
 * A file the record does not know yet runs early, as if long. `npm run test:durations` writes the record anew from
 * vitest's cache after a full run.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

/** Seconds by project name and file path (from the repository's root). */
export type Durations = Record<string, Record<string, number>>;

/** Where the record lives, from the repository's root. */
export const DURATIONS_FILE = 'test/order/durations.json';
const UNKNOWN_SECONDS = 30;

export function readDurations(file: string): Durations {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Durations;
  } catch {
    return {};
  }
}

/** The files in the order to run them: longest recorded first, unknown ones as if long, ties by path. */
export function longestFirst<T extends { moduleId: string; project: { name: string } }>(files: readonly T[], durations: Durations, root: string): T[] {
  const seconds = (f: T) => durations[f.project.name]?.[relative(root, f.moduleId)] ?? UNKNOWN_SECONDS;
  return [...files].sort((a, b) => seconds(b) - seconds(a) || (a.moduleId < b.moduleId ? -1 : a.moduleId > b.moduleId ? 1 : 0));
}

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    return longestFirst(files, readDurations(join(root, DURATIONS_FILE)), root);
  }
}
