import { closeSync, constants, createReadStream, existsSync, fstatSync, openSync, readdirSync, readlinkSync, readSync, realpathSync, type Stats, statSync } from 'node:fs';
import { isAbsolute, sep } from 'node:path';

/**
 * A source that cannot be read as it is: retrying cannot help. `message` is what any key may see (where in the source
 * and the problem: never a path, never the file's text); `detail` is for the operator's log.
 */
export class IngestSourceError extends Error {
  constructor(
    message: string,
    readonly detail: string = message,
  ) {
    super(message);
  }
}

/**
 * A file with more than one name, read from a request's path: another name may lie outside the folders ingest may
 * read (a hard link cannot be told from the file it links to), so it is not read. A folder's ingest skips it.
 */
export class LinkedFileError extends IngestSourceError {}

export interface ReadLimits {
  /** Bytes of one file (a JSONL file is streamed, so this bounds the time spent, not memory). */
  maxFileBytes: number;
  /** Bytes held whole at once: one JSONL line, or one text file of a folder. */
  maxRecordBytes: number;
}

export const DEFAULT_READ_LIMITS: ReadLimits = { maxFileBytes: 1024 ** 3, maxRecordBytes: 16 * 1024 ** 2 };

/**
 * How a source may be read. `within`: the folders every file read must lie in once symlinks are resolved (the
 * folders a request's path had to name). Absent for a path the operator configured (CORPORA, the CLI's own path).
 */
export interface ReadScope {
  within?: readonly string[];
  limits: ReadLimits;
  /** A path a request named: a file with more than one hard link is not read (LinkedFileError). */
  requested?: boolean;
}

export const OPERATOR_SCOPE: ReadScope = { limits: DEFAULT_READ_LIMITS };

const CHUNK_BYTES = 64 * 1024;
/** Linux names the file an open descriptor reads: checked again after opening, so a folder swapped for a symlink in between is caught. */
const FD_PATHS = existsSync('/proc/self/fd') ? '/proc/self/fd' : undefined;
/** Never wait on a FIFO swapped in after the check, never follow a symlink swapped in at the last component. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

/** Whether `path` is `root` or lies under it (both absolute and normalised). */
export const liesWithin = (path: string, root: string): boolean => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);

/** A file system error as a problem anyone may read: the errno code, never the path the message carries. */
function problemOf(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return 'does not exist';
  if (code === 'EACCES' || code === 'EPERM') return 'cannot be read (permission denied)';
  return `cannot be read (${code ?? 'I/O error'})`;
}

const refuse = (where: string, problem: string, path: string, cause?: unknown): IngestSourceError =>
  new IngestSourceError(`${where}: ${problem}`, `${path}: ${problem}${cause instanceof Error ? ` (${cause.message})` : ''}`);

/**
 * Reads a source's files within its scope: regular files only (a device, FIFO or socket is refused before it is
 * opened), inside the scope's folders after symlinks are resolved, no file over the size cap, and nothing held whole
 * past the record cap. `where` names the place in errors ("the source", "line 12", "file 3 of the folder").
 */
export class SourceFiles {
  private readonly roots: string[] | undefined;
  private readonly requested: boolean;
  readonly limits: ReadLimits;

  constructor(scope: ReadScope) {
    this.limits = scope.limits;
    this.requested = scope.requested === true;
    this.roots = scope.within?.flatMap((root) => {
      if (!isAbsolute(root)) return [];
      try {
        return [realpathSync(root)];
      } catch {
        return [];
      }
    });
  }

  /** The real path of `path`, which must lie within the scope's folders. */
  realPath(path: string, where: string): string {
    let real: string;
    try {
      real = realpathSync(path);
    } catch (err) {
      throw refuse(where, problemOf(err), path, err);
    }
    if (this.roots && !this.roots.some((root) => liesWithin(real, root))) throw refuse(where, 'lies outside the folders ingest may read', `${path} (${real})`);
    return real;
  }

  /** A folder's real path, checked like any file. */
  folder(path: string, where: string): string {
    const real = this.realPath(path, where);
    if (!this.stat(real, where).isDirectory()) throw refuse(where, 'is not a folder', real);
    return real;
  }

  /**
   * A folder's entries, sorted by name; what cannot be listed is the source's fault. Names are read as bytes: one
   * that is not UTF-8 comes back with `name` undefined (decoded, it would name a file that does not exist).
   */
  entries(dir: string, where: string): FolderEntry[] {
    let listed;
    try {
      listed = readdirSync(dir, { withFileTypes: true, encoding: 'buffer' });
    } catch (err) {
      throw refuse(where, problemOf(err), dir, err);
    }
    return listed
      .map((entry) => ({ entry, name: utf8Name(entry.name), shown: shownName(entry.name) }))
      .sort((a, b) => a.shown.localeCompare(b.shown))
      .map(({ entry, name, shown }) => ({ name, shown, isFile: entry.isFile(), isDirectory: entry.isDirectory() }));
  }

  /** A text file read whole (at most `maxRecordBytes`). */
  readText(path: string, where: string): string {
    const max = this.limits.maxRecordBytes;
    const { fd, real } = this.open(path, where, max, 'INGEST_MAX_RECORD_BYTES');
    try {
      const parts: Buffer[] = [];
      let total = 0;
      for (;;) {
        const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
        const got = this.read(fd, chunk, real, where);
        if (got === 0) break;
        total += got;
        if (total > max) throw refuse(where, `is larger than INGEST_MAX_RECORD_BYTES (${max} bytes)`, real);
        parts.push(chunk.subarray(0, got));
      }
      return Buffer.concat(parts, total).toString('utf8');
    } finally {
      closeSync(fd);
    }
  }

  /** A JSONL file's lines, read in chunks on this thread (a process that holds the whole corpus anyway). */
  *linesSync(path: string): Generator<NumberedLine> {
    const { fd, real } = this.open(path, 'the source', this.limits.maxFileBytes, 'INGEST_MAX_FILE_BYTES');
    const lines = new LineSplitter(this.limits, real);
    try {
      for (;;) {
        const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
        const got = this.read(fd, chunk, real, 'the source');
        if (got === 0) break;
        yield* lines.push(chunk.subarray(0, got));
      }
      yield* lines.end();
    } finally {
      closeSync(fd);
    }
  }

  /** A JSONL file's lines, streamed: one line (at most `maxRecordBytes`) and one chunk held at a time. */
  async *lines(path: string): AsyncGenerator<NumberedLine> {
    const { fd, real } = this.open(path, 'the source', this.limits.maxFileBytes, 'INGEST_MAX_FILE_BYTES');
    const stream = createReadStream(real, { fd, highWaterMark: CHUNK_BYTES });
    const lines = new LineSplitter(this.limits, real);
    try {
      for await (const chunk of stream) yield* lines.push(chunk as Buffer);
      yield* lines.end();
    } catch (err) {
      throw err instanceof IngestSourceError ? err : refuse('the source', problemOf(err), real, err);
    } finally {
      stream.destroy();
    }
  }

  private stat(real: string, where: string): Stats {
    try {
      return statSync(real);
    } catch (err) {
      throw refuse(where, problemOf(err), real, err);
    }
  }

  private read(fd: number, into: Buffer, real: string, where: string): number {
    try {
      return readSync(fd, into, 0, into.length, null);
    } catch (err) {
      throw refuse(where, problemOf(err), real, err);
    }
  }

  private open(path: string, where: string, maxBytes: number, cap: string): { fd: number; real: string } {
    const real = this.realPath(path, where);
    const before = this.stat(real, where);
    if (!before.isFile()) throw refuse(where, 'is not a regular file (a device, FIFO, socket or folder)', real);
    this.assertOneName(before, real, where);
    if (before.size > maxBytes) throw refuse(where, `is larger than ${cap} (${maxBytes} bytes)`, real);
    let fd: number;
    try {
      fd = openSync(real, OPEN_FLAGS);
    } catch (err) {
      throw refuse(where, problemOf(err), real, err);
    }
    const opened = fstatSync(fd);
    const openedPath = FD_PATHS ? readlinkSync(`${FD_PATHS}/${fd}`) : real;
    if (!opened.isFile() || opened.ino !== before.ino || opened.dev !== before.dev || (this.roots && !this.roots.some((root) => liesWithin(openedPath, root)))) {
      closeSync(fd);
      throw refuse(where, 'changed while it was opened', real);
    }
    try {
      this.assertOneName(opened, real, where);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    return { fd, real };
  }

  /** From a request's path, a file must have one name only (see LinkedFileError); the operator's own paths may have more. */
  private assertOneName(stats: Stats, real: string, where: string): void {
    if (!this.requested || stats.nlink <= 1) return;
    const problem = `has ${stats.nlink} hard links, and ingest from a path a request names reads no file with more than one (another name may lie outside INGEST_ROOTS)`;
    throw new LinkedFileError(`${where}: ${problem}`, `${real}: ${problem}`);
  }
}

export interface FolderEntry {
  /** The name, or undefined when its bytes are not UTF-8. */
  name: string | undefined;
  /** The name to show: invalid bytes as \xNN. */
  shown: string;
  isFile: boolean;
  isDirectory: boolean;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function utf8Name(bytes: Buffer): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** A name as text, each byte that is not part of a UTF-8 character as \xNN. */
function shownName(bytes: Buffer): string {
  const valid = utf8Name(bytes);
  if (valid !== undefined) return valid;
  let out = '';
  for (let i = 0; i < bytes.length; ) {
    let taken = 0;
    for (let n = Math.min(4, bytes.length - i); n > 0 && !taken; n--) {
      const char = utf8Name(bytes.subarray(i, i + n));
      if (char !== undefined && [...char].length === 1) {
        out += char;
        taken = n;
      }
    }
    if (!taken) {
      out += `\\x${bytes[i]!.toString(16).toUpperCase().padStart(2, '0')}`;
      taken = 1;
    }
    i += taken;
  }
  return out;
}

export interface NumberedLine {
  /** 1-based. */
  n: number;
  line: string;
}

/** Splits bytes into lines on LF (a CR before it is left for the parser's trim), refusing a line over the record cap. */
class LineSplitter {
  private parts: Buffer[] = [];
  private partBytes = 0;
  private n = 0;
  private total = 0;

  constructor(
    private readonly limits: ReadLimits,
    private readonly path: string,
  ) {}

  *push(chunk: Buffer): Generator<NumberedLine> {
    this.total += chunk.length;
    // The size was checked when the file was opened; a file that grows while it is read stops here.
    if (this.total > this.limits.maxFileBytes) throw refuse('the source', `is larger than INGEST_MAX_FILE_BYTES (${this.limits.maxFileBytes} bytes)`, this.path);
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      const end = newline < 0 ? chunk.length : newline;
      if (this.partBytes + end - start > this.limits.maxRecordBytes) {
        throw refuse(`line ${this.n + 1}`, `is longer than INGEST_MAX_RECORD_BYTES (${this.limits.maxRecordBytes} bytes)`, this.path);
      }
      if (newline < 0) {
        if (end > start) {
          this.parts.push(chunk.subarray(start));
          this.partBytes += end - start;
        }
        return;
      }
      const tail = chunk.subarray(start, newline);
      const line = this.parts.length ? Buffer.concat([...this.parts, tail]) : tail;
      this.parts = [];
      this.partBytes = 0;
      start = newline + 1;
      yield { n: ++this.n, line: line.toString('utf8') };
    }
  }

  *end(): Generator<NumberedLine> {
    if (!this.parts.length) return;
    const line = Buffer.concat(this.parts).toString('utf8');
    this.parts = [];
    this.partBytes = 0;
    yield { n: ++this.n, line };
  }
}
