import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { documentPassages } from '../markup/document-passages';
import type { Passage } from './passage';
import { safeId } from './stable-id';

const TEXT_FILE = /\.(md|markdown|txt|html?|xhtml)$/i;

function listTextFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith('.')) continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && TEXT_FILE.test(entry.name)) out.push(full);
    }
  };
  walk(root);
  return out;
}

/**
 * Ingest a folder of `.md`/`.txt`/`.html` files (recursively, in sorted order) into passages with ids
 * `<relative-path>#<n>` (1-based, made safe), titled by file and section (`documentPassages`).
 */
export function readFolderPassages(root: string): Passage[] {
  return [...folderPassages(root)].map((f) => f.passage);
}

/** The folder's passages one file at a time, each with the relative path of the file it was split from. */
export function* folderPassages(root: string): Generator<{ file: string; passage: Passage }> {
  for (const file of listTextFiles(root)) {
    const rel = relative(root, file).split(sep).join('/');
    const text = readFileSync(file, 'utf8');
    const chunks = documentPassages(rel, text);
    for (let i = 0; i < chunks.length; i++) yield { file: rel, passage: { id: `${safeId(rel)}#${i + 1}`, ...chunks[i]! } };
  }
}
