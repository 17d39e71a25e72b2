import type { IngestSource } from '@orrery/protocol';
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createHash } from 'node:crypto';
import { folderPassages } from '../corpus/ingest-folder';
import { parseJsonlLine } from '../corpus/ingest-jsonl';
import type { Passage } from '../corpus/passage';
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

/** A path's source kind: a folder of .md/.txt/.html files, else a JSONL file. */
export function sourceOf(path: string): IngestSource {
  let dir: boolean;
  try {
    dir = statSync(path).isDirectory();
  } catch {
    throw new Error(`${path} does not exist`);
  }
  return { kind: dir ? 'folder' : 'jsonl', path };
}

/**
 * The source's passages, streamed (a JSONL file line by line, a folder file by file), so that reading a large corpus
 * holds one line or one file at a time. A JSONL passage's document is its title (the file or page it came from);
 * a folder passage's, the file's relative path.
 */
export async function* sourcePassages(source: IngestSource): AsyncGenerator<StoredPassage> {
  if (source.kind === 'folder') {
    for (const { file, passage } of folderPassages(source.path)) yield toStoredPassage(passage, file);
    return;
  }
  const lines = createInterface({ input: createReadStream(source.path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    const passage = parseJsonlLine(line, `${source.path}:${++n}`);
    if (passage) yield toStoredPassage(passage, passage.title);
  }
}
