import type { IngestSource } from '@orrery/protocol';
import { statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { folderPassages, type OnSkip } from '../sources/ingest-folder';
import { parseJsonlLine } from '../sources/ingest-jsonl';
import type { Passage } from '../store/passage';
import { type ReadLimits, SourceFiles } from '../sources/source-files';
import type { StoredPassage } from '../store/passage-store';

/** The hash a re-ingest compares: a passage whose title, url and text are unchanged is not written again. */
export function passageHash(p: Passage): string {
  return createHash('sha1').update(p.title).update('\u0000').update(p.url ?? '').update('\u0000').update(p.text).digest('hex').slice(0, 20);
}

/** NUL carries no text, and PostgreSQL's text type refuses it; man pages rendered to text can hold some. */
const NUL = /\u0000/g;

export function toStoredPassage(p: Passage, document: string): StoredPassage {
  const clean: Passage = { ...p, title: p.title.replace(NUL, ''), text: p.text.replace(NUL, '') };
  return { ...clean, document: document.replace(NUL, ''), contentHash: passageHash(clean) };
}

/**
 * A path's source kind (a folder of .md/.txt/.html files, else a JSONL file) and the folders its reads must stay within
 * (the worker checks them as it reads: `within`); `requested` when a request named the path (INGEST_ROOTS).
 */
export function sourceOf(path: string, within: readonly string[], requested = false): IngestSource {
  let dir: boolean;
  try {
    dir = statSync(path).isDirectory();
  } catch {
    throw new Error(`${path} does not exist`);
  }
  return { kind: dir ? 'folder' : 'jsonl', path, within: [...within], ...(requested ? { requested: true as const } : {}) };
}

/**
 * The source's passages, streamed (a JSONL file line by line, a folder file by file), so that reading a large corpus
 * holds one line or one file at a time, every file within `source.within` and the limits; a folder's files it leaves out
 go to `onSkip`. A JSONL passage's document
 * is its title (the file or page it came from); a folder passage's, the file's relative path.
 */
export async function* sourcePassages(source: IngestSource, limits: ReadLimits, onSkip?: OnSkip): AsyncGenerator<StoredPassage> {
  const scope = { within: source.within, limits, requested: source.requested };
  if (source.kind === 'folder') {
    for (const { file, passage } of folderPassages(source.path, scope, onSkip)) yield toStoredPassage(passage, file);
    return;
  }
  for await (const { n, line } of new SourceFiles(scope).lines(source.path)) {
    const passage = parseJsonlLine(line, `line ${n}`);
    if (passage) yield toStoredPassage(passage, passage.title);
  }
}
