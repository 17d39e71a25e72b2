import { join, relative, sep } from 'node:path';
import { documentPassages } from '../markup/document-passages';
import type { Passage } from '../store/passage';
import { LinkedFileError, OPERATOR_SCOPE, type ReadScope, SourceFiles } from './source-files';
import { safeId } from '../store/stable-id';

const TEXT_FILE = /\.(md|markdown|txt|html?|xhtml)$/i;

/** A file or folder of the source left out, by its path relative to the source, and why. */
export interface SkippedFile {
  file: string;
  reason: string;
}

export type OnSkip = (skipped: SkippedFile) => void;

const NOT_UTF8 = 'its name is not valid UTF-8 (rename it to read it)';

/**
 * Symlinks are not followed (a Dirent of one is neither file nor folder), nor are devices, FIFOs or sockets read. A
 * text file or folder whose name is not UTF-8 is left out and reported to `onSkip`: the rest of the folder is read.
 */
export function listTextFiles(files: SourceFiles, root: string, onSkip: OnSkip = () => undefined): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const entry of files.entries(dir, 'a folder of the source')) {
      if (entry.shown.startsWith('.') || !(entry.isDirectory || (entry.isFile && TEXT_FILE.test(entry.shown)))) continue;
      if (entry.name === undefined) {
        onSkip({ file: `${rel}${entry.shown}${entry.isDirectory ? '/' : ''}`, reason: NOT_UTF8 });
        continue;
      }
      const full = join(dir, entry.name);
      if (entry.isDirectory) walk(full, `${rel}${entry.name}/`);
      else out.push(full);
    }
  };
  walk(root, '');
  return out;
}

/**
 * Ingest a folder of `.md`/`.txt`/`.html` files (recursively, in sorted order) into passages with ids
 * `<relative-path>#<n>` (1-based, made safe), titled by file and section (`documentPassages`).
 */
export function readFolderPassages(root: string, scope: ReadScope = OPERATOR_SCOPE): Passage[] {
  return [...folderPassages(root, scope)].map((f) => f.passage);
}

/**
 * The folder's passages one file at a time, each with the relative path of the file it was split from. A file the
 * folder's ingest leaves out (a name that is not UTF-8, more than one hard link) goes to `onSkip`, by relative path:
 * the name its passages would have had.
 */
export function* folderPassages(path: string, scope: ReadScope = OPERATOR_SCOPE, onSkip?: OnSkip): Generator<{ file: string; passage: Passage }> {
  const files = new SourceFiles(scope);
  const root = files.folder(path, 'the source');
  // Errors name a file by its place in name order: its path is not for every key to see.
  for (const [k, file] of listTextFiles(files, root, onSkip).entries()) {
    const rel = relative(root, file).split(sep).join('/');
    let text: string;
    try {
      text = files.readText(file, `file ${k + 1} of the folder`);
    } catch (err) {
      if (!(err instanceof LinkedFileError) || !onSkip) throw err;
      onSkip({ file: rel, reason: err.message.slice(err.message.indexOf(': ') + 2) });
      continue;
    }
    const chunks = documentPassages(rel, text);
    for (let i = 0; i < chunks.length; i++) yield { file: rel, passage: { id: `${safeId(rel)}#${i + 1}`, ...chunks[i]! } };
  }
}
