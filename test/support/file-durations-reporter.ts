/**
 * Writes how long each test file took into test/file-durations.json, the table the longest-first sequencer orders
 * files by (`npm run test:durations`). Files that passed in this run replace their entries; entries of files no longer
 * there are dropped; the rest are kept.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { DURATIONS_FILE, type FileDurations } from './longest-first-sequencer.mts';

export default class FileDurationsReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const table = JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')) as FileDurations;
    for (const m of modules) {
      if (m.state() !== 'passed') continue;
      const d = m.diagnostic();
      table[relative(m.project.config.root, m.moduleId)] = Math.round((d.prepareDuration + d.collectDuration + d.duration) / 100) / 10;
    }
    const root = modules[0]?.project.config.root ?? process.cwd();
    const kept = Object.entries(table).filter(([file]) => existsSync(resolve(root, file)));
    const sorted = Object.fromEntries(kept.sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(DURATIONS_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
  }
}
