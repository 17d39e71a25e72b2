// Writes test/order/durations.json from vitest's results cache, which every `vitest run` leaves behind: each file's
// duration in seconds, by project. Run after a full `npm test` (`npm run test:durations`).
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const cacheRoot = join('node_modules', '.vite', 'vitest');
const caches = readdirSync(cacheRoot)
  .map((d) => join(cacheRoot, d, 'results.json'))
  .filter((f) => statSync(f, { throwIfNoEntry: false })?.isFile())
  .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
if (!caches.length) throw new Error(`no vitest results under ${cacheRoot}: run the suite first`);
const { projects } = JSON.parse(readFileSync(caches[0], 'utf8'));
const durations = {};
for (const [project, { files }] of Object.entries(projects).sort(([a], [b]) => a.localeCompare(b))) {
  durations[project] = Object.fromEntries(
    Object.entries(files)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([file, r]) => [file, Math.round(r.duration / 100) / 10]),
  );
}
writeFileSync(join('test', 'order', 'durations.json'), `${JSON.stringify(durations, null, 2)}\n`);
const total = Object.values(durations).flatMap((f) => Object.values(f)).reduce((s, x) => s + x, 0);
console.log(`test/order/durations.json: ${Object.values(durations).reduce((n, f) => n + Object.keys(f).length, 0)} files, ${Math.round(total)} s in all`);
