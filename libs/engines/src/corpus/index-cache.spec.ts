import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { INDEX_VERSION } from './corpus-index';
import { buildIndexCached, passagesHash } from './index-cache';

const passages = [
  { id: 'a', title: '', text: 'Kestrels hover over the coast in autumn.' },
  { id: 'b', title: '', text: 'Harriers hunt low over the marsh.' },
];

describe('buildIndexCached', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orrery-index-cache-spec-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, `${passagesHash(passages)}.json`);

  it('writes the analyzed passages once and reads them back', () => {
    buildIndexCached(passages, dir);
    const cached = JSON.parse(readFileSync(file, 'utf8'));
    expect(cached.version).toBe(INDEX_VERSION);
    expect(buildIndexCached(passages, dir).searchTerms(['kestrel'], { limit: 5 }).map((h) => h.id)).toEqual(['a']);
  });

  it('rebuilds and rewrites a cache of another version instead of re-analyzing on every start', () => {
    writeFileSync(file, JSON.stringify({ version: INDEX_VERSION + 1, analyzed: [{ text: 'stale', title: '' }, { text: 'stale', title: '' }] }));
    const index = buildIndexCached(passages, dir);
    expect(index.searchTerms(['harrier'], { limit: 5 }).map((h) => h.id)).toEqual(['b']);
    expect(JSON.parse(readFileSync(file, 'utf8')).version).toBe(INDEX_VERSION);
  });
});
