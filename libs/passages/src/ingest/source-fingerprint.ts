import type { IngestSource } from '@orrery/protocol';
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { listTextFiles } from '../sources/ingest-folder';
import { type ReadLimits, SourceFiles } from '../sources/source-files';

/**
 * What identifies a source's content without reading it: its real path and, per file, device, inode, size, mtime and
 * ctime (nanoseconds; ctime moves on every write and cannot be set back, unlike mtime). Equal fingerprints mean the
 * same files, unchanged since; a folder's lists each of its text files. Null when the source cannot be looked at: the
 * ingest then reads it, and reports what it meets.
 */
export function sourceFingerprint(source: IngestSource, limits: ReadLimits): string | null {
  try {
    const files = new SourceFiles({ within: source.within, limits });
    const hash = createHash('sha1').update(source.kind);
    const add = (file: string): void => {
      const s = statSync(file, { bigint: true });
      hash.update(`\u0000${file}\u0000${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`);
    };
    if (source.kind === 'jsonl') add(files.realPath(source.path, 'the source'));
    else for (const file of listTextFiles(files, files.folder(source.path, 'the source'))) add(file);
    return `v1:${hash.digest('hex')}`;
  } catch {
    return null;
  }
}
