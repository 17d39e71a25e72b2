import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { StoredPassage } from '@orrery/passages';
import { SqlitePassageStore } from '@orrery/passages';
import { keepCorpusStructure } from './keep-structure';

const dir = mkdtempSync(join(tmpdir(), 'orrery-keep-structure-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const passage = (id: string, text: string): StoredPassage => ({ id, document: id, title: id, text, url: `https://example.test/${id}`, contentHash: text });

describe('keepCorpusStructure', () => {
  it('counts the terms of a corpus too large to read whole, so its first question does not', async () => {
    const file = join(dir, 'passages.sqlite');
    const store = new SqlitePassageStore(file);
    await store.upsert('large', [passage('a', 'kestrels hover'), passage('b', 'owls hunt at night'), passage('c', 'falcons dive')]);
    await keepCorpusStructure(store, 'large', 2);
    const db = new Database(file, { readonly: true });
    const counted = db.prepare('SELECT c.passages FROM term_counts c JOIN generations g ON g.name = c.name AND g.n = c.generation WHERE c.name = ?').get('large');
    db.close();
    await store.close();
    expect(counted).toEqual({ passages: 3 });
  });
});
