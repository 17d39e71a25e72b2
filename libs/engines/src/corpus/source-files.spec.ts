import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IngestSource } from '@orrery/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { sourcePassages } from '../ingest/source-passages';
import { readFolderPassages } from './ingest-folder';
import { readJsonlPassages } from './ingest-jsonl';
import { DEFAULT_READ_LIMITS, IngestSourceError, type ReadLimits } from './source-files';

const base = mkdtempSync(join(tmpdir(), 'orrery-source-files-'));
const allowed = join(base, 'allowed');
const outside = join(base, 'outside');
mkdirSync(allowed);
mkdirSync(outside);
const line = (id: string, text = `Text of ${id}.`) => JSON.stringify({ id, text });
const write = (path: string, content: string): string => (writeFileSync(path, content), path);

const read = async (source: Omit<IngestSource, 'within'>, limits: ReadLimits = DEFAULT_READ_LIMITS, within = [allowed]) => {
  const ids: string[] = [];
  for await (const p of sourcePassages({ ...source, within }, limits)) ids.push(p.id);
  return ids;
};
/** The error a read ends with, checked to name neither a path nor the file's text. */
const failure = async (run: () => Promise<unknown> | unknown, secret?: string): Promise<IngestSourceError> => {
  let caught: unknown;
  try {
    await run();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(IngestSourceError);
  const err = caught as IngestSourceError;
  expect(err.message).not.toContain(base);
  if (secret) expect(err.message).not.toContain(secret);
  return err;
};

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('what ingest may read', () => {
  it('reads a JSONL file inside the allowed folders, line by line', async () => {
    const path = write(join(allowed, 'ok.jsonl'), `${line('a')}\r\n\n${line('b')}`);
    expect(await read({ kind: 'jsonl', path })).toEqual(['a', 'b']);
  });

  it('refuses a path outside the allowed folders, and a symlink inside them that leads out', async () => {
    const secret = write(join(outside, 'secret.jsonl'), line('s'));
    expect((await failure(() => read({ kind: 'jsonl', path: secret }))).message).toBe('the source: lies outside the folders ingest may read');
    symlinkSync(secret, join(allowed, 'link.jsonl'));
    expect((await failure(() => read({ kind: 'jsonl', path: join(allowed, 'link.jsonl') }))).message).toBe('the source: lies outside the folders ingest may read');
    symlinkSync(outside, join(allowed, 'link-dir'));
    expect((await failure(() => read({ kind: 'folder', path: join(allowed, 'link-dir') }))).message).toBe('the source: lies outside the folders ingest may read');
    // A symlink that stays inside is followed.
    symlinkSync(join(allowed, 'ok.jsonl'), join(allowed, 'inner-link.jsonl'));
    expect(await read({ kind: 'jsonl', path: join(allowed, 'inner-link.jsonl') })).toEqual(['a', 'b']);
  });

  it('refuses devices and FIFOs at once, without waiting on them', async () => {
    expect((await failure(() => read({ kind: 'jsonl', path: '/dev/zero' }, DEFAULT_READ_LIMITS, ['/dev']))).message).toMatch(/^the source: is not a regular file/);
    const fifo = join(allowed, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    expect((await failure(() => read({ kind: 'jsonl', path: fifo }))).message).toMatch(/^the source: is not a regular file/);
    // The configured corpora's reader refuses them too, though their paths are trusted.
    expect((await failure(() => readJsonlPassages('/dev/zero'))).message).toMatch(/^the source: is not a regular file/);
  });

  it('refuses a file over the size cap, and names the line that is over the line cap', async () => {
    const limits = { maxFileBytes: 4096, maxRecordBytes: 1024 };
    const big = write(join(allowed, 'big.jsonl'), `${line('a')}\n`.repeat(400));
    expect((await failure(() => read({ kind: 'jsonl', path: big }, limits))).message).toBe('the source: is larger than INGEST_MAX_FILE_BYTES (4096 bytes)');
    const long = write(join(allowed, 'long.jsonl'), `${line('a')}\n${line('b', 'x'.repeat(2000))}\n${line('c')}\n`);
    expect((await failure(() => read({ kind: 'jsonl', path: long }, limits))).message).toBe('line 2: is longer than INGEST_MAX_RECORD_BYTES (1024 bytes)');
    expect((await failure(() => readJsonlPassages(long, { limits }))).message).toBe('line 2: is longer than INGEST_MAX_RECORD_BYTES (1024 bytes)');
    // One line with no newline at all (what a device gives) stops at the cap, not at the end of the file.
    const endless = write(join(allowed, 'endless.jsonl'), 'y'.repeat(3000));
    expect((await failure(() => read({ kind: 'jsonl', path: endless }, limits))).message).toBe('line 1: is longer than INGEST_MAX_RECORD_BYTES (1024 bytes)');
  });

  it('in a folder, skips symlinks and FIFOs, and names an oversized file by its place, not its path', async () => {
    const folder = join(allowed, 'notes');
    mkdirSync(folder);
    write(join(folder, 'a.md'), '# A\n\nShort note about salmon.');
    write(join(folder, 'b.md'), `# B\n\n${'word '.repeat(400)}`);
    symlinkSync(join(outside, 'secret.jsonl'), join(folder, 'c.md'));
    execFileSync('mkfifo', [join(folder, 'd.md')]);
    expect([...new Set(readFolderPassages(folder).map((p) => p.id.split('#')[0]))]).toEqual(['a.md', 'b.md']);
    const limits = { maxFileBytes: DEFAULT_READ_LIMITS.maxFileBytes, maxRecordBytes: 1024 };
    expect((await failure(() => read({ kind: 'folder', path: folder }, limits))).message).toBe('file 2 of the folder: is larger than INGEST_MAX_RECORD_BYTES (1024 bytes)');
  });

  it('says what is wrong with a line without quoting it', async () => {
    const path = write(join(allowed, 'environ.jsonl'), `${line('a')}\n${line('b')}\nPORT=39101 SECRET=hunter2\n`);
    const err = await failure(() => read({ kind: 'jsonl', path }), 'PORT=39101');
    expect(err.message).toBe('line 3: not valid JSON');
    // The operator's log may keep what JSON.parse said, quote and all.
    expect(err.detail).toContain('PORT=39101');
    const cut = write(join(allowed, 'cut.jsonl'), `${line('a')}\n{"id": "b", "text": "hunter2`);
    expect((await failure(() => read({ kind: 'jsonl', path: cut }), 'hunter2')).message).toMatch(/^line 2: not valid JSON at column \d+$/);
    const dup = write(join(allowed, 'dup.jsonl'), `${line('hunter2')}\n${line('hunter2')}\n`);
    expect((await failure(() => readJsonlPassages(dup), 'hunter2')).message).toBe('line 2: duplicate id (an earlier line has it)');
  });
});
