import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CorpusStructure } from '@orrery/passages';
import { SqlitePassageStore } from '@orrery/passages';
import { CorpusIndex } from '../index/corpus-index';
import { knownClusters, partitionClusters, partitionName } from './corpus-partition';
import { CorpusRegistry } from '../index/corpus-registry';
import { KEPT_PARTITION } from './corpus-structure';
import { DEFAULT_WORKING_SET } from './topic-working-set';

/** Subjects of a few passages each, their own words mixed with common ones, deterministically. */
function corpus(size: number): { id: string; title: string; text: string }[] {
  const common = ['report', 'season', 'region', 'local', 'figure', 'record', 'account', 'early', 'later', 'people', 'several', 'number'];
  let s = 11;
  const next = () => (s = (s * 16807) % 2147483647);
  return Array.from({ length: size }, (_, i) => {
    const subject = i % 40;
    const own = Array.from({ length: 6 }, (_, k) => `subj${subject}word${k}`);
    const words = Array.from({ length: 40 }, () => (next() % 3 === 0 ? own[next() % own.length]! : common[next() % common.length]!));
    return { id: `p${i}`, title: `Subject ${subject}`, text: `${words.join(' ')}.` };
  });
}

const NAME = partitionName(KEPT_PARTITION);
const jsonl = (passages: readonly { id: string; title: string; text: string }[]): string => passages.map((p) => JSON.stringify(p)).join('\n') + '\n';
/** A stored partition as the cluster of each passage, in the index's order. */
const inOrder = (index: CorpusIndex, structure: CorpusStructure | null): number[] | undefined => {
  const byId = structure?.partitions[NAME];
  return byId && index.passages.map((p) => byId[p.id]!);
};

describe('the corpus structure kept in the store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orrery-structure-'));
  const file = join(dir, 'subjects.jsonl');
  const store = new SqlitePassageStore(join(dir, 'passages.sqlite'));
  const registry = () => new CorpusRegistry({ builtins: false, corpora: `subjects=${file}`, store });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is computed when a corpus is brought into the store, the partition a fresh index computes, and read by the next registry instead of computed', async () => {
    const passages = corpus(600);
    writeFileSync(file, jsonl(passages));
    const { index } = await registry().forTopic('subjects', 'Subject 7');
    const generation = await store.generation('subjects');
    const kept = await store.structure('subjects', generation);
    expect(Object.keys(kept!.partitions[NAME]!).sort()).toEqual(passages.map((p) => p.id).sort());
    // The same partition as one computed on an index nothing was given.
    const fresh = partitionClusters(new CorpusIndex(index.passages), KEPT_PARTITION);
    expect(new Set(fresh).size).toBeGreaterThan(5);
    expect(inOrder(index, kept)).toEqual(fresh);
    expect(knownClusters(index)[NAME]).toEqual(fresh);

    // What the store keeps is what a new registry's index gets: another (valid) partition kept for this generation is the one read.
    const planted = Object.fromEntries(passages.map((p, i) => [p.id, i % 3]));
    expect(await store.keepStructure('subjects', generation, { partitions: { [NAME]: planted } })).toBe(true);
    const read = (await registry().forTopic('subjects', 'Subject 7')).index;
    expect(knownClusters(read)[NAME]).toEqual(read.passages.map((p) => planted[p.id]));
    // One that does not fit the index (a passage missing) is not given: the partition is computed and kept again.
    const { p0: _dropped, ...partial } = planted;
    await store.keepStructure('subjects', generation, { partitions: { [NAME]: partial } });
    const recomputed = (await registry().forTopic('subjects', 'Subject 7')).index;
    expect(knownClusters(recomputed)[NAME]).toEqual(fresh);
    expect(inOrder(recomputed, await store.structure('subjects', generation))).toEqual(fresh);
  });

  it('is computed and kept by the first reader when the store has none for the generation (a corpus written before structures were kept)', async () => {
    // Written straight to the store, as an older version's ingest left it: passages, no structure.
    await store.upsert('written', corpus(300).map((p) => ({ ...p, document: p.title, contentHash: `${p.title}|${p.text}` })));
    const generation = await store.generation('written');
    expect(await store.structure('written', generation)).toBeNull();
    const { index } = await new CorpusRegistry({ builtins: false, store }).forTopic('written', 'Subject 7');
    expect(inOrder(index, await store.structure('written', generation))).toEqual(partitionClusters(new CorpusIndex(index.passages), KEPT_PARTITION));
  });

  it('goes stale with a re-ingest: the new generation gets its own, computed at the ingest', async () => {
    const before = await store.generation('subjects');
    const passages = corpus(600).map((p) => (p.id === 'p5' ? { ...p, text: `${p.text} A late addition about subj9word1 and subj9word2.` } : p));
    writeFileSync(file, jsonl(passages));
    const reg = registry();
    // Only the ingest (a configured corpus is brought into the store on first use): no topic's index is built.
    expect((await reg.passage('subjects', 'p5'))?.text).toContain('late addition');
    const after = await store.generation('subjects');
    expect(after).toBeGreaterThan(before);
    expect(await store.structure('subjects', before)).toBeNull();
    const index = new CorpusIndex((await store.get('subjects', await store.passageIds('subjects', 1000))).map(({ id, title, text }) => ({ id, title, text })));
    expect(inOrder(index, await store.structure('subjects', after))).toEqual(partitionClusters(index, KEPT_PARTITION));
  });

  it('is not kept for a corpus above the bound a corpus is read whole to', async () => {
    const big = join(dir, 'big.jsonl');
    writeFileSync(big, jsonl(corpus(120)));
    const reg = new CorpusRegistry({ builtins: false, corpora: `big=${big}`, store, workingSet: { ...DEFAULT_WORKING_SET, wholeCorpusMax: 100 } });
    await reg.forTopic('big', 'Subject 3');
    expect(await store.structure('big', await store.generation('big'))).toBeNull();
  });
});
