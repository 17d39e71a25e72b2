import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository's root. */
export const REPO_ROOT = resolve(__dirname, '../..');

/** The TypeScript sources below a folder (specs, dist and node_modules left out), for tests that read the code itself. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (name === 'node_modules' || name === 'dist') return [];
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return p.endsWith('.ts') && !p.endsWith('.spec.ts') ? [p] : [];
  });
}
