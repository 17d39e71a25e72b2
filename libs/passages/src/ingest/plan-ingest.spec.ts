import { describe, expect, it } from 'vitest';
import { storedHashes } from '../../../../test/support/stored-hashes';
import type { StoredPassage } from '../store/passage-store';
import { SqlitePassageStore } from '../store/sqlite-passage-store';
import { FingerprintTable } from './fingerprint-table';
import { planIngest } from './plan-ingest';
import { toStoredPassage } from './source-passages';

const passage = (id: string, text: string): StoredPassage => toStoredPassage({ id, title: 'T', text }, 'T');
async function* from(ps: StoredPassage[]) {
  yield* ps;
}

describe('planIngest', () => {
  it('queues only new and changed passages, in chunks, and removes from the store what the source no longer has', async () => {
    const store = new SqlitePassageStore(':memory:');
    const source = [passage('a', 'one'), passage('b', 'two'), passage('c', 'three'), passage('d', 'four')];
    await store.upsert('c', [source[0]!, passage('b', 'an old two'), passage('gone', 'x')]);
    const chunks: string[][] = [];
    const plan = await planIngest(from(source), store, 'c', 2, async (n, ps) => void (chunks[n] = ps.map((p) => p.id)));
    expect(chunks).toEqual([['b', 'c'], ['d']]);
    expect(plan).toEqual({ passages: 4, changed: 3, removed: 1, chunks: 2 });
    expect([...(await storedHashes(store, 'c')).keys()]).toEqual(['a', 'b']);
    await store.close();
  });

  it('removes across the store’s pages, page by page, whatever the source kept', async () => {
    const store = new SqlitePassageStore(':memory:');
    const many = Array.from({ length: 40_500 }, (_, i) => passage(`p${i}`, `text ${i}`));
    await store.upsert('c', many);
    // Keeps every third passage: the other two thirds are spread over all three pages of hashes.
    const kept = many.filter((_, i) => i % 3 === 0);
    const plan = await planIngest(from(kept), store, 'c', 1000, async () => undefined);
    expect(plan).toEqual({ passages: 13_500, changed: 0, removed: 27_000, chunks: 0 });
    expect([...(await storedHashes(store, 'c')).keys()].sort()).toEqual(kept.map((p) => p.id).sort());
    await store.close();
  });

  it('refuses a duplicate id and an empty source', async () => {
    const store = new SqlitePassageStore(':memory:');
    await expect(planIngest(from([passage('a', 'x'), passage('a', 'y')]), store, 'c', 10, async () => undefined)).rejects.toThrow(/^passage 2: duplicate id \(an earlier passage has it\)$/);
    await expect(planIngest(from([]), store, 'c', 10, async () => undefined)).rejects.toThrow(/no passages/);
    await store.close();
  });

  it('hashes title, url and text', () => {
    const base = { id: 'a', title: 'T', text: 'x' };
    const h = toStoredPassage(base, 'T').contentHash;
    expect(toStoredPassage({ ...base, title: 'U' }, 'T').contentHash).not.toBe(h);
    expect(toStoredPassage({ ...base, url: 'https://e.x' }, 'T').contentHash).not.toBe(h);
    expect(toStoredPassage({ ...base, text: 'y' }, 'T').contentHash).not.toBe(h);
    expect(toStoredPassage(base, 'T').contentHash).toBe(h);
  });
});

describe('FingerprintTable', () => {
  it('holds keys and values exactly as a Map would, through its growth', () => {
    const table = new FingerprintTable(true);
    const map = new Map<string, string>();
    let refused = 0;
    for (let i = 0; i < 100_000; i++) {
      const id = `doc-${i % 997}/p${i}`;
      if (!table.add(id, `h${i % 13}`)) refused++;
      map.set(id, `h${i % 13}`);
    }
    expect(refused).toBe(0);
    expect(table.size).toBe(map.size);
    expect(table.add('doc-0/p0', 'other')).toBe(false);
    const wrong = [...map].filter(([id, hash]) => table.sameValue(id, hash) !== true || table.sameValue(id, `${hash}x`) !== false);
    expect(wrong).toEqual([]);
    expect(table.sameValue('doc-0/p100000', 'h0')).toBeUndefined();
    expect(table.has('')).toBe(false);
  });

  it('without values, answers membership only', () => {
    const seen = new FingerprintTable(false);
    expect(seen.add('a')).toBe(true);
    expect(seen.add('a')).toBe(false);
    expect(seen.has('a') && !seen.has('b')).toBe(true);
    expect(seen.sameValue('a', 'anything')).toBe(false);
  });
});
