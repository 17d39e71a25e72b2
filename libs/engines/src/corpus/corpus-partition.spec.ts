import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CorpusIndex } from './corpus-index';
import { corpusPartition } from './corpus-partition';
import { buildIndexCached, derivedCacheFile } from './index-cache';

/** Two subjects, six passages each, that share no content word. */
const passages = [
  ...['nest', 'hover', 'prey', 'wing', 'cliff', 'moult'].map((w, i) => ({
    id: `k${i}`,
    title: '',
    text: `Kestrel falcons ${w} along the windy coast; the kestrel ${w}s where falcons hunt voles.`,
  })),
  ...['hull', 'sail', 'keel', 'mast', 'rudder', 'anchor'].map((w, i) => ({
    id: `s${i}`,
    title: '',
    text: `Schooner crews mend the ${w} in harbour; a schooner ${w} needs tar and rope.`,
  })),
];
const options = { neighbors: 4, resolution: 1 };

describe('corpusPartition', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orrery-partition-spec-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('puts passages on one subject in one cluster and apart from the other subject', () => {
    const p = corpusPartition(new CorpusIndex(passages), options);
    const kestrel = new Set(passages.slice(0, 6).map((x) => p.clusterOf(x.id)));
    const schooner = new Set(passages.slice(6).map((x) => p.clusterOf(x.id)));
    expect(kestrel.size).toBe(1);
    expect(schooner.size).toBe(1);
    expect([...kestrel][0]).not.toBe([...schooner][0]);
    expect(p.membersOf(p.clusterOf('k0')!)).toEqual(['k0', 'k1', 'k2', 'k3', 'k4', 'k5']);
  });

  it('is the same in every process: deterministic, and cached next to the index', () => {
    const first = buildIndexCached(passages, dir);
    const clusters = passages.map((x) => corpusPartition(first, options).clusterOf(x.id));
    const file = derivedCacheFile(first, `partition-v1-k${options.neighbors}-r${options.resolution}`)!;
    expect(existsSync(file)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(clusters);
    // A second process reads the cache: a planted cache is what it gets.
    const planted = clusters.map((c) => 1 - c!);
    writeFileSync(file, JSON.stringify(planted));
    const second = buildIndexCached(passages, dir);
    expect(passages.map((x) => corpusPartition(second, options).clusterOf(x.id))).toEqual(planted);
    expect(passages.map((x) => corpusPartition(new CorpusIndex(passages), options).clusterOf(x.id))).toEqual(clusters);
  });

  it('rebuilds over a damaged cache', () => {
    const index = buildIndexCached(passages, dir);
    const file = derivedCacheFile(index, `partition-v1-k${options.neighbors}-r${options.resolution}`)!;
    writeFileSync(file, '[1, 2');
    const again = buildIndexCached(passages, dir);
    expect(corpusPartition(again, options).clusterOf('k0')).toBe(corpusPartition(again, options).clusterOf('k5'));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toHaveLength(passages.length);
  });
});
