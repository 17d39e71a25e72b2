import { join, relative, sep } from 'node:path';
import { documentPassages } from '../markup/document-passages';
import type { Passage } from './passage';
import { OPERATOR_SCOPE, type ReadScope, SourceFiles } from './source-files';
import { safeId } from './stable-id';

const TEXT_FILE = /\.(md|markdown|txt|html?|xhtml)$/i;

/** Symlinks are not followed (a Dirent of one is neither file nor folder), nor are devices, FIFOs or sockets read. */
function listTextFiles(files: SourceFiles, root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of files.entries(dir, 'a folder of the source')) {
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
export function readFolderPassages(root: string, scope: ReadScope = OPERATOR_SCOPE): Passage[] {
  return [...folderPassages(root, scope)].map((f) => f.passage);
}

/** The folder's passages one file at a time, each with the relative path of the file it was split from. */
export function* folderPassages(path: string, scope: ReadScope = OPERATOR_SCOPE): Generator<{ file: string; passage: Passage }> {
  const files = new SourceFiles(scope);
  const root = files.folder(path, 'the source');
  // Errors name a file by its place in name order: its path is not for every key to see.
  for (const [k, file] of listTextFiles(files, root).entries()) {
    const rel = relative(root, file).split(sep).join('/');
    const text = files.readText(file, `file ${k + 1} of the folder`);
    const chunks = documentPassages(rel, text);
    for (let i = 0; i < chunks.length; i++) yield { file: rel, passage: { id: `${safeId(rel)}#${i + 1}`, ...chunks[i]! } };
  }
}
