import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CorpusIndex, INDEX_VERSION, type SerializedCorpusIndex } from './corpus-index';
import type { Passage } from './passage';
import { contentHash } from './stable-id';

export const INDEX_CACHE_DIR = join(tmpdir(), 'orrery-index-cache');

/** Cache key: a hash of every passage's id, title and text (any change in content builds a new index). */
export function passagesHash(passages: readonly Passage[]): string {
  return contentHash(passages.flatMap((p) => [p.id, p.title, p.text]));
}

/**
 * Build an index, reusing a serialized one from `<tmpdir>/orrery-index-cache/<content-hash>.json`
 * when present. The cache is an optimization only: any read or write failure falls back to building.
 */
export function buildIndexCached(passages: readonly Passage[], dir: string | null = INDEX_CACHE_DIR): CorpusIndex {
  if (!dir) return new CorpusIndex(passages);
  const hash = passagesHash(passages);
  const file = join(dir, `${hash}.json`);
  let index: CorpusIndex | null = null;
  try {
    const cached = JSON.parse(readFileSync(file, 'utf8')) as SerializedCorpusIndex;
    // Another version's cache (or a damaged one) is a miss: rebuilt below and written over.
    if (cached.version === INDEX_VERSION && cached.analyzed?.length === passages.length) index = new CorpusIndex(passages, cached);
  } catch {
    // not cached yet, or unreadable
  }
  if (!index) {
    index = new CorpusIndex(passages);
    writeCacheFile(file, JSON.stringify(index.serialize()));
  }
  cacheKeys.set(index, { dir, hash });
  return index;
}

const cacheKeys = new WeakMap<CorpusIndex, { dir: string; hash: string }>();

/**
 * Where to cache something derived from an index (`<dir>/<content-hash>.<name>.json`), or null when the
 * index was built without a cache (an in-memory corpus).
 */
export function derivedCacheFile(index: CorpusIndex, name: string): string | null {
  const key = cacheKeys.get(index);
  return key ? join(key.dir, `${key.hash}.${name}.json`) : null;
}

/** Write a cache file atomically (temp file, then rename); a failure (read-only tmp) is ignored: caching is optional. */
export function writeCacheFile(file: string, text: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } catch {
    // keep in memory only
  }
}

/**
 * Passages derived deterministically from bundled data (the SOTU split) cached under a versioned key,
 * so a CLI start does not re-split 10 MB of text. Falls back to deriving on any cache failure.
 */
export function derivePassagesCached(key: string, derive: () => Passage[], dir: string | null = INDEX_CACHE_DIR): Passage[] {
  if (!dir) return derive();
  const file = join(dir, `passages-${key}.json`);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Passage[];
  } catch {
    // derive below
  }
  const passages = derive();
  writeCacheFile(file, JSON.stringify(passages));
  return passages;
}
