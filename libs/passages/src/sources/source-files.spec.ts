import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IngestSource } from '@orrery/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { sourcePassages } from '../ingest/source-passages';
import { readFolderPassages, type SkippedFile } from './ingest-folder';
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

  it('from a path a request named, skips a folder\'s hard-linked file (naming it, relative to the folder) and refuses a hard-linked JSONL file', async () => {
    const folder = join(allowed, 'linked');
    mkdirSync(join(folder, 'sub'), { recursive: true });
    write(join(folder, 'a.md'), '# A\n\nA note about salmon.');
    const secret = write(join(outside, 'shadow.md'), '# Shadow\n\nroot:x:0:0 hunter2');
    linkSync(secret, join(folder, 'sub', 'b.md'));
    const skipped: SkippedFile[] = [];
    const ids: string[] = [];
    for await (const p of sourcePassages({ kind: 'folder', path: folder, within: [allowed], requested: true }, DEFAULT_READ_LIMITS, (s) => skipped.push(s))) ids.push(p.id);
    expect(ids).toEqual(['a.md#1']);
    expect(skipped).toEqual([{ file: 'sub/b.md', reason: expect.stringMatching(/^has 2 hard links, and ingest from a path a request names reads no file with more than one/) }]);
    // Without a place to report it, the folder's ingest fails on it, naming it by its place.
    expect((await failure(() => read({ kind: 'folder', path: folder, requested: true }))).message).toMatch(/^file 2 of the folder: has 2 hard links/);
    const jsonl = write(join(outside, 'shadow.jsonl'), line('s', 'hunter2'));
    linkSync(jsonl, join(allowed, 'shadow.jsonl'));
    expect((await failure(() => read({ kind: 'jsonl', path: join(allowed, 'shadow.jsonl'), requested: true }), 'hunter2')).message).toMatch(/^the source: has 2 hard links/);
    // The operator's own paths (CORPORA, the CLI's) may hold hard links.
    expect(await read({ kind: 'jsonl', path: join(allowed, 'shadow.jsonl') })).toEqual(['s']);
    expect(readFolderPassages(folder, { within: [allowed], limits: DEFAULT_READ_LIMITS }).map((p) => p.id)).toEqual(['a.md#1', 'sub/b.md#1']);
  });

  it('skips a file or folder whose name is not UTF-8, reporting it, and reads the rest of the folder', async () => {
    const folder = join(allowed, 'latin1');
    mkdirSync(folder);
    write(join(folder, 'a.md'), '# A\n\nA note about salmon.');
    const latin1 = (name: string) => Buffer.concat([Buffer.from(`${folder}/caf`), Buffer.from([0xe9]), Buffer.from(name)]);
    writeFileSync(latin1('.md'), '# Café\n\nA note about coffee.');
    mkdirSync(latin1('-notes'));
    writeFileSync(Buffer.concat([latin1('-notes'), Buffer.from('/c.md')]), '# C\n\nInside.');
    write(join(folder, 'z.md'), '# Z\n\nThe last note.');
    const skipped: SkippedFile[] = [];
    const ids: string[] = [];
    for await (const p of sourcePassages({ kind: 'folder', path: folder, within: [allowed] }, DEFAULT_READ_LIMITS, (s) => skipped.push(s))) ids.push(p.id);
    expect(ids).toEqual(['a.md#1', 'z.md#1']);
    expect(skipped).toEqual([
      { file: 'caf\\xE9-notes/', reason: 'its name is not valid UTF-8 (rename it to read it)' },
      { file: 'caf\\xE9.md', reason: 'its name is not valid UTF-8 (rename it to read it)' },
    ]);
    expect(readFolderPassages(folder).map((p) => p.id)).toEqual(['a.md#1', 'z.md#1']);
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
