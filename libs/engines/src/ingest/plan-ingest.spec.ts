import { describe, expect, it } from 'vitest';
import type { StoredPassage } from '../store/passage-store';
import { planIngest } from './plan-ingest';
import { toStoredPassage } from './source-passages';

const passage = (id: string, text: string): StoredPassage => toStoredPassage({ id, title: 'T', text }, 'T');
async function* from(ps: StoredPassage[]) {
  yield* ps;
}

describe('planIngest', () => {
  it('queues only new and changed passages, in chunks, and returns what the source no longer has', async () => {
    const source = [passage('a', 'one'), passage('b', 'two'), passage('c', 'three'), passage('d', 'four')];
    const stored = new Map([
      ['a', source[0]!.contentHash],
      ['b', 'an old hash'],
      ['gone', 'x'],
    ]);
    const chunks: string[][] = [];
    const plan = await planIngest(from(source), stored, 2, async (n, ps) => void (chunks[n] = ps.map((p) => p.id)));
    expect(chunks).toEqual([['b', 'c'], ['d']]);
    expect(plan).toEqual({ passages: 4, changed: 3, removed: ['gone'], chunks: 2 });
  });

  it('refuses a duplicate id and an empty source', async () => {
    await expect(planIngest(from([passage('a', 'x'), passage('a', 'y')]), new Map(), 10, async () => undefined)).rejects.toThrow(/^passage 2: duplicate id \(an earlier passage has it\)$/);
    await expect(planIngest(from([]), new Map(), 10, async () => undefined)).rejects.toThrow(/no passages/);
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
