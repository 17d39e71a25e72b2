import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Passage } from './passage';
import { splitIntoPassages } from './split-passages';
import { safeId } from './stable-id';

const TEXT_FILE = /\.(md|markdown|txt)$/i;

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

/** A document's title: its first Markdown heading, else the file name without extension. */
function titleOf(text: string, relPath: string): string {
  const heading = /^#{1,6}\s+(.+)$/m.exec(text);
  if (heading) return heading[1]!.trim();
  return relPath.replace(/\.[^.]+$/, '').split('/').pop()!;
}

/**
 * Ingest a folder of `.md`/`.txt` files (recursively, in sorted order) into passages with ids
 * `<relative-path>#<n>` (1-based, made safe), titled after the document.
 */
export function readFolderPassages(root: string): Passage[] {
  return [...folderPassages(root)].map((f) => f.passage);
}

/** The folder's passages one file at a time, each with the relative path of the file it was split from. */
export function* folderPassages(root: string): Generator<{ file: string; passage: Passage }> {
  for (const file of listTextFiles(root)) {
    const rel = relative(root, file).split(sep).join('/');
    const text = readFileSync(file, 'utf8');
    const title = titleOf(text, rel);
    const chunks = splitIntoPassages(text);
    for (let i = 0; i < chunks.length; i++) yield { file: rel, passage: { id: `${safeId(rel)}#${i + 1}`, title, text: chunks[i]! } };
  }
}
