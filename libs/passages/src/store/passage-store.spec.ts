import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PassageStore, StoredPassage } from './passage-store';
import { PostgresPassageStore } from './postgres-passage-store';
import { SqlitePassageStore } from './sqlite-passage-store';
import { loadStoreLocation, type StoreLocation } from './store-config';
import { indexedTerms } from './store-query';
import { storedHashes } from '../../../../test/support/stored-hashes';

const PG_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ENGINES_DIST = resolve(__dirname, '..', '..', 'dist', 'index.js');
const run = promisify(execFile);

const passage = (id: string, document: string, text: string, title = id): StoredPassage => ({
  id,
  document,
  title,
  text,
  url: `https://example.test/${document}`,
  contentHash: `${title}|${text}`,
});

const CORPUS: StoredPassage[] = [
  passage('kestrel-1', 'birds/kestrel', 'The kestrel hovers over fields hunting voles and mice.', 'Kestrel'),
  passage('kestrel-2', 'birds/kestrel', 'Kestrel nests are often found on cliffs and old buildings.', 'Kestrel'),
  passage('kestrel-3', 'birds/kestrel', 'A kestrel kestrel kestrel sighting: the kestrel hovered again.', 'Kestrel'),
  passage('falcon-1', 'birds/falcon', 'The peregrine falcon is the fastest bird, diving at prey; kestrel is a smaller falcon.', 'Falcon'),
  passage('owl-1', 'birds/owl', 'Owls hunt at night with silent flight.', 'Owl'),
];

interface Adapter {
  name: string;
  location: () => StoreLocation;
  open: () => PassageStore;
  cleanup: () => Promise<void>;
}

const dir = mkdtempSync(join(tmpdir(), 'orrery-store-'));
const schema = `t_store_${process.pid}_${randomBytes(3).toString('hex')}`;
const sqliteLocation: StoreLocation = { kind: 'sqlite', file: join(dir, 'passages.sqlite') };
const threadLocation: StoreLocation = { kind: 'sqlite', file: join(dir, 'threaded.sqlite') };
// The thread runs compiled code: the built store (tsc -b), as every process that opens the store runs it.
const built = () => createRequire(__filename)(resolve(__dirname, '..', '..', 'dist', 'store', 'threaded-passage-store.js')) as { ThreadedPassageStore: new (file: string) => PassageStore };
const pgLocation: StoreLocation = { kind: 'postgres', url: PG_URL, schema };

const adapters: Adapter[] = [
  { name: 'SQLite', location: () => sqliteLocation, open: () => new SqlitePassageStore(sqliteLocation.file), cleanup: async () => rmSync(dir, { recursive: true, force: true }) },
  { name: 'SQLite in a thread', location: () => threadLocation, open: () => new (built().ThreadedPassageStore)(threadLocation.file), cleanup: async () => rmSync(dir, { recursive: true, force: true }) },
  {
    name: 'PostgreSQL',
    location: () => pgLocation,
    open: () => new PostgresPassageStore({ url: PG_URL, schema }),
    cleanup: async () => {
      const c = new Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    },
  },
];

describe.each(adapters)('PassageStore contract: $name', (adapter) => {
  let store: PassageStore;
  const corpus = 'birds';

  beforeAll(async () => {
    store = adapter.open();
    await store.upsert(corpus, CORPUS);
  });
  afterAll(async () => {
    await store.close();
    await adapter.cleanup();
  });

  it('upsert is idempotent by id, and a changed passage replaces the old one', async () => {
    await store.upsert(corpus, CORPUS);
    expect(await store.stats(corpus)).toEqual({ passages: 5, documents: 3 });
    const changed = passage('owl-1', 'birds/owl', 'Barn owls swallow voles whole.', 'Owl');
    await store.upsert(corpus, [changed]);
    expect((await store.get(corpus, ['owl-1']))[0]).toEqual(changed);
    // The index follows the text: the old words no longer find it, the new ones do.
    expect((await store.search(corpus, 'silent flight', { limit: 5 })).map((h) => h.id)).not.toContain('owl-1');
    expect((await store.search(corpus, 'barn owls swallow', { limit: 5 })).map((h) => h.id)).toEqual(['owl-1']);
    await store.upsert(corpus, [CORPUS[4]!]);
  });

  it('generation changes with every write that changes the corpus, and only then', async () => {
    expect(await store.generation('never-written')).toBe(0);
    const g = await store.generation(corpus);
    expect(g).toBeGreaterThan(0);
    await store.upsert(corpus, CORPUS);
    await store.remove(corpus, ['never-there']);
    expect(await store.generation(corpus)).toBe(g);
    await store.upsert(corpus, [passage('gen', 'birds/gen', 'A wren.')]);
    const g2 = await store.generation(corpus);
    expect(g2).toBeGreaterThan(g);
    await store.remove(corpus, ['gen']);
    expect(await store.generation(corpus)).toBeGreaterThan(g2);
  });

  it('hashPages lists every passage with its content hash, per corpus', async () => {
    const hashes = await storedHashes(store, corpus);
    expect(hashes).toEqual(new Map(CORPUS.map((p) => [p.id, p.contentHash])));
    expect(await storedHashes(store, 'no-such-corpus')).toEqual(new Map());
  });

  it('corpora are separate', async () => {
    await store.upsert('other', [passage('kestrel-1', 'elsewhere', 'Something else entirely about kestrel.')]);
    expect((await store.get(corpus, ['kestrel-1']))[0]!.document).toBe('birds/kestrel');
    expect(await store.stats('other')).toEqual({ passages: 1, documents: 1 });
    expect((await store.search('other', 'kestrel', { limit: 10 })).map((h) => h.id)).toEqual(['kestrel-1']);
    expect(await store.corpora()).toEqual(expect.arrayContaining([corpus, 'other']));
    await store.remove('other', ['kestrel-1']);
    expect(await store.stats('other')).toEqual({ passages: 0, documents: 0 });
    expect(await store.stats(corpus)).toEqual({ passages: 5, documents: 3 });
    // A corpus emptied is no longer one a request can name.
    expect(await store.corpora()).not.toContain('other');
    expect(await store.corpora()).toContain(corpus);
  });

  it('drop deletes a whole corpus, also for a connection that read it before; a corpus written again under its name starts empty', async () => {
    const other = adapter.open();
    try {
      await store.upsert('doomed', [passage('d-1', 'doomed/a', 'Moorhens nest in reeds.'), passage('d-2', 'doomed/b', 'Coots dive for weed.')]);
      expect((await other.search('doomed', 'moorhens', { limit: 5 })).map((h) => h.id)).toEqual(['d-1']);
      const g = await store.generation('doomed');
      expect(await store.drop('doomed')).toBe(true);
      expect(await store.corpora()).not.toContain('doomed');
      // The other connection sees it gone (no stale table name), and its generation moved on.
      expect(await other.stats('doomed')).toEqual({ passages: 0, documents: 0 });
      expect(await other.search('doomed', 'moorhens', { limit: 5 })).toEqual([]);
      expect(await storedHashes(other, 'doomed')).toEqual(new Map());
      expect((await other.termStats('doomed', ['moorhen'])).passages).toBe(0);
      expect(await other.generation('doomed')).toBeGreaterThan(g);
      await other.upsert('doomed', [passage('d-3', 'doomed/c', 'Grebes dance on lakes.')]);
      expect(await storedHashes(store, 'doomed')).toEqual(new Map([['d-3', 'd-3|Grebes dance on lakes.']]));
      expect((await store.search('doomed', 'moorhens coots grebes', { limit: 5 })).map((h) => h.id)).toEqual(['d-3']);
      expect(await store.drop('doomed')).toBe(true);
      expect(await store.drop('doomed')).toBe(false);
      expect(await store.drop('never-written')).toBe(false);
      expect(await store.stats(corpus)).toEqual({ passages: 5, documents: 3 });
    } finally {
      await other.close();
    }
  });

  it('keeps a source fingerprint per corpus until it is cleared or the corpus dropped', async () => {
    expect(await store.sourceFingerprint('printed')).toBeNull();
    await store.upsert('printed', [passage('p-1', 'printed/a', 'Swifts sleep on the wing.')]);
    const g = await store.generation('printed');
    await store.setSourceFingerprint('printed', 'fp-1');
    await store.setSourceFingerprint('printed', 'fp-2');
    expect(await store.sourceFingerprint('printed')).toBe('fp-2');
    expect(await store.sourceFingerprint(corpus)).toBeNull();
    // Not passage content: readers' working sets stay valid.
    expect(await store.generation('printed')).toBe(g);
    await store.setSourceFingerprint('printed', null);
    expect(await store.sourceFingerprint('printed')).toBeNull();
    await store.setSourceFingerprint('printed', 'fp-3');
    await store.drop('printed');
    expect(await store.sourceFingerprint('printed')).toBeNull();
  });

  it('keeps a corpus structure for one generation: never read for another, stale after a write or a drop', async () => {
    const shaped = 'shaped';
    await store.upsert(shaped, [passage('s-1', 'shaped/a', 'Rooks roost in rookeries.'), passage('s-2', 'shaped/b', 'Jackdaws nest in chimneys.')]);
    const g = await store.generation(shaped);
    const structure = { partitions: { 'k10-r2': { 's-1': 0, 's-2': 1 } } };
    expect(await store.structure(shaped, g)).toBeNull();
    expect(await store.keepStructure(shaped, g, structure)).toBe(true);
    expect(await store.structure(shaped, g)).toEqual(structure);
    expect(await store.structure(shaped, g - 1)).toBeNull();
    expect(await store.structure(corpus, await store.generation(corpus))).toBeNull();
    // Derived from a generation the corpus has left: not kept.
    expect(await store.keepStructure(shaped, g + 1, structure)).toBe(false);
    expect(await store.keepStructure('never-written', 0, structure)).toBe(false);
    expect(await store.structure(shaped, g)).toEqual(structure);
    // Not passage content: the structure stays valid.
    await store.setSourceFingerprint(shaped, 'fp');
    expect(await store.structure(shaped, await store.generation(shaped))).toEqual(structure);
    await store.upsert(shaped, [passage('s-3', 'shaped/c', 'Magpies hoard.')]);
    const g2 = await store.generation(shaped);
    expect(await store.structure(shaped, g2)).toBeNull();
    const replaced = { partitions: { 'k10-r2': { 's-1': 0, 's-2': 0, 's-3': 1 } } };
    expect(await store.keepStructure(shaped, g2, replaced)).toBe(true);
    expect(await store.structure(shaped, g2)).toEqual(replaced);
    expect(await store.structure(shaped, g)).toBeNull();
    await store.drop(shaped);
    expect(await store.structure(shaped, g2)).toBeNull();
    expect(await store.structure(shaped, await store.generation(shaped))).toBeNull();
    // Written again under its name: a structure of the dropped corpus is never read.
    await store.upsert(shaped, [passage('s-1', 'shaped/a', 'Rooks roost in rookeries.')]);
    expect(await store.structure(shaped, await store.generation(shaped))).toBeNull();
    await store.drop(shaped);
  });

  it('remove deletes passages and their index entries; unknown ids are ignored', async () => {
    await store.upsert(corpus, [passage('gone', 'birds/gone', 'Dodo birds are extinct.')]);
    expect((await store.search(corpus, 'dodo', { limit: 5 })).map((h) => h.id)).toEqual(['gone']);
    await store.remove(corpus, ['gone', 'never-there']);
    expect(await store.search(corpus, 'dodo', { limit: 5 })).toEqual([]);
    expect(await store.get(corpus, ['gone'])).toEqual([]);
  });

  it('search ranks by relevance, stems words, ignores stop words and query syntax', async () => {
    const hits = await store.search(corpus, 'kestrels', { limit: 10 });
    expect(hits.map((h) => h.id).sort()).toEqual(['falcon-1', 'kestrel-1', 'kestrel-2', 'kestrel-3']);
    expect(hits[0]!.id).toBe('kestrel-3');
    for (let i = 1; i < hits.length; i++) expect(hits[i]!.score).toBeLessThanOrEqual(hits[i - 1]!.score);
    expect((await store.search(corpus, 'night owl hunting', { limit: 1 }))[0]!.id).toBe('owl-1');
    expect(await store.search(corpus, 'the and of', { limit: 5 })).toEqual([]);
    expect((await store.search(corpus, 'falcon" OR ) NEAR( * \\ \' | & !', { limit: 5 }))[0]!.id).toBe('falcon-1');
    expect(await store.search(corpus, 'kestrel', { limit: 0 })).toEqual([]);
    expect(await store.search('no-such-corpus', 'kestrel', { limit: 5 })).toEqual([]);
  });

  it('stores a passage holding an encoded blob (one 3,500-character word) and finds it by its other words', async () => {
    const blob = 'QVdTOkV5SmhZMk5sYzNOTGVVbGtJam9pUVV0SlFWTTBNMU5KTkZoWVJVUkJTRUpRU1NJc0luTmxZM0psZEV0bGVTSTZJa05q'.repeat(36);
    await store.upsert('blobs', [passage('token-1', 'aws/token', `The authorization token is ${blob} and expires after twelve hours.`)]);
    expect((await store.search('blobs', 'authorization token expires', { limit: 5 })).map((h) => h.id)).toEqual(['token-1']);
    expect((await store.indexedTerms('blobs', ['token-1']))[0]!.text.split(' ').every((t) => t.length <= 64)).toBe(true);
  });

  it('caps hits per document', async () => {
    const capped = await store.search(corpus, 'kestrel falcon', { limit: 10, perDocument: 1 });
    expect(capped.map((h) => h.id).sort()).toEqual(['falcon-1', 'kestrel-3']);
    const two = await store.search(corpus, 'kestrel', { limit: 3, perDocument: 2 });
    expect(two).toHaveLength(3);
    expect(two.filter((h) => h.id.startsWith('kestrel-'))).toHaveLength(2);
  });

  it('passageIds lists a corpus in the order its passages were first written, an update keeping its place', async () => {
    const ids = CORPUS.map((p) => p.id);
    expect(await store.passageIds(corpus, 100)).toEqual(ids);
    expect(await store.passageIds(corpus, 2)).toEqual(ids.slice(0, 2));
    expect(await store.passageIds('never-written', 10)).toEqual([]);
    await store.upsert('ordered', [passage('z', 'd', 'Zebras graze.'), passage('a', 'd', 'Antelopes run.')]);
    await store.upsert('ordered', [passage('a', 'd', 'Antelopes run fast.'), passage('m', 'd', 'Meerkats stand.')]);
    expect(await store.passageIds('ordered', 10)).toEqual(['z', 'a', 'm']);
    await store.drop('ordered');
  });

  it('get returns passages in the order asked and leaves unknown ids out', async () => {
    const got = await store.get(corpus, ['owl-1', 'missing', 'kestrel-2', 'falcon-1']);
    expect(got.map((p) => p.id)).toEqual(['owl-1', 'kestrel-2', 'falcon-1']);
    expect(got[0]).toEqual(CORPUS[4]);
    expect(await store.get(corpus, [])).toEqual([]);
  });

  it('indexedTerms gives the analysed terms search matched, in the order asked', async () => {
    const terms = await store.indexedTerms(corpus, ['owl-1', 'missing', 'kestrel-1']);
    expect(terms.map((t) => t.id)).toEqual(['owl-1', 'kestrel-1']);
    expect(terms[0]).toEqual({ id: 'owl-1', ...(await indexedTerms(CORPUS[4]!)) });
    expect(terms[1]!.text.split(' ')).toContain('kestrel');
  });

  it('termStats counts the passages holding each term, through updates and removals', async () => {
    const [kestrel, owl] = [...new Set([...(await indexedTerms(CORPUS[0]!)).text.split(' ')])].filter((t) => t.startsWith('kestrel')).concat('owl');
    const before = await store.termStats(corpus, [kestrel!, owl!, 'nosuchterm']);
    expect(before.passages).toBe(5);
    expect(before.df).toEqual(new Map([[kestrel!, 4], [owl!, 1]]));
    await store.upsert(corpus, [passage('owl-1', 'birds/owl', 'A kestrel, not an owl after all.', 'Owl')]);
    expect((await store.termStats(corpus, [kestrel!])).df.get(kestrel!)).toBe(5);
    await store.remove(corpus, ['kestrel-1']);
    expect((await store.termStats(corpus, [kestrel!])).df.get(kestrel!)).toBe(4);
    await store.upsert(corpus, [CORPUS[0]!, CORPUS[4]!]);
    expect((await store.termStats(corpus, [kestrel!, owl!])).df).toEqual(before.df);
  });

  it('passageCount counts a corpus no further than asked', async () => {
    expect([await store.passageCount(corpus, 1), await store.passageCount(corpus, 3), await store.passageCount(corpus, 100)]).toEqual([1, 3, 5]);
    expect(await store.passageCount('no-such-corpus', 10)).toBe(0);
  });

  it('keeps a derived value while the corpus is at the generation it was derived from', async () => {
    const g = await store.generation(corpus);
    const ids = JSON.stringify(['kestrel-2', 'owl-1']);
    expect(await store.derived(corpus, 'kestrels', g)).toBeNull();
    await store.keepDerived(corpus, 'kestrels', g, ids);
    expect(await store.derived(corpus, 'kestrels', g)).toBe(ids);
    expect(await store.derived(corpus, 'owls', g)).toBeNull();
    expect(await store.derived('other-corpus', 'kestrels', g)).toBeNull();
    // Asked for by a reader of another generation: not its value.
    expect(await store.derived(corpus, 'kestrels', g - 1)).toBeNull();
    // Derived before a write it did not see: not kept.
    await store.keepDerived(corpus, 'late', g - 1, '[]');
    expect(await store.derived(corpus, 'late', g - 1)).toBeNull();
    await store.upsert(corpus, [passage('owl-1', 'birds/owl', 'Owls hunt at night, and a kestrel by day.', 'Owl')]);
    expect(await store.derived(corpus, 'kestrels', g)).toBeNull();
    expect(await store.derived(corpus, 'kestrels', await store.generation(corpus))).toBeNull();
    await store.upsert(corpus, [CORPUS[4]!]);
  });

  it('termStats counts what another connection wrote since this one last counted', async () => {
    const other = adapter.open();
    try {
      const [wren] = (await indexedTerms({ id: 'w', title: '', text: 'wren' })).text.split(' ');
      expect((await store.termStats(corpus, [wren!])).df.has(wren!)).toBe(false);
      await other.upsert(corpus, [passage('wren-1', 'birds/wren', 'The wren sings loudly.', 'Wren')]);
      const after = await store.termStats(corpus, [wren!]);
      expect([after.passages, after.df.get(wren!)]).toEqual([6, 1]);
      await other.remove(corpus, ['wren-1']);
      expect((await store.termStats(corpus, [wren!])).df.has(wren!)).toBe(false);
    } finally {
      await other.close();
    }
  });

  it('a capped search is the full ranking capped, also when most of the best hits tie in one document', async () => {
    const many = 'heron wades in the shallows';
    const herons = [
      ...Array.from({ length: 40 }, (_, i) => passage(`heron-a${String(i).padStart(2, '0')}`, 'herons/a', `The ${many}.`, 'Herons')),
      ...Array.from({ length: 6 }, (_, i) => passage(`heron-b${i}`, `herons/b${i % 3}`, `A grey heron ${'stands '.repeat(i + 1)}still.`, 'Herons')),
    ];
    await store.upsert('herons', herons);
    try {
      const full = await store.search('herons', 'heron', { limit: 1000 });
      for (const [limit, perDocument] of [[4, 2], [5, 1], [10, 3], [46, 40]] as const) {
        const seen = new Map<string, number>();
        const document = (id: string) => herons.find((h) => h.id === id)!.document;
        const expected = full.filter((h) => {
          const n = (seen.get(document(h.id)) ?? 0) + 1;
          seen.set(document(h.id), n);
          return n <= perDocument;
        });
        expect(await store.search('herons', 'heron', { limit, perDocument })).toEqual(expected.slice(0, limit));
      }
    } finally {
      await store.drop('herons');
    }
  });

  it('two connections read while a third writes', async () => {
    const [a, b] = [adapter.open(), adapter.open()];
    try {
      const more = Array.from({ length: 300 }, (_, i) => passage(`bulk-${i}`, `bulk/${i % 7}`, `Bulk passage ${i} about sparrows and finches.`));
      const reads = Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).search(corpus, 'kestrel', { limit: 3 }));
      await Promise.all([store.upsert(corpus, more), ...reads]);
      for (const r of await Promise.all(reads)) expect(r[0]!.id).toBe('kestrel-3');
      expect((await a.stats(corpus)).passages).toBe(305);
      expect((await b.search(corpus, 'sparrows', { limit: 500 })).length).toBe(300);
      await store.remove(corpus, more.map((p) => p.id));
      expect((await a.stats(corpus)).passages).toBe(5);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('two writers upserting the same new passages at once leave one copy and exact term counts', async () => {
    const [a, b] = [adapter.open(), adapter.open()];
    try {
      const same = Array.from({ length: 40 }, (_, i) => passage(`twin-${i}`, `twins/${i % 4}`, `Twin passage ${i} about wrens and warblers.`));
      await Promise.all([a.upsert(corpus, same), b.upsert(corpus, [...same].reverse())]);
      expect((await store.stats(corpus)).passages).toBe(45);
      const [wren] = (await indexedTerms(same[0]!)).text.split(' ').filter((t) => t.startsWith('wren'));
      expect((await store.termStats(corpus, [wren!])).df.get(wren!)).toBe(40);
      await store.remove(corpus, same.map((p) => p.id));
      expect((await store.termStats(corpus, [wren!])).df.get(wren!) ?? 0).toBe(0);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('another process reads what this one wrote, from the same location', async () => {
    const script = `
      const { openPassageStore } = require(${JSON.stringify(ENGINES_DIST)});
      const store = openPassageStore(JSON.parse(process.argv[1]));
      Promise.all([store.search('birds', 'kestrel', { limit: 1 }), store.stats('birds')])
        .then(([hits, stats]) => { console.log(JSON.stringify({ top: hits[0].id, stats })); return store.close(); });`;
    const { stdout } = await run(process.execPath, ['-e', script, JSON.stringify(adapter.location())]);
    expect(JSON.parse(stdout)).toEqual({ top: 'kestrel-3', stats: { passages: 5, documents: 3 } });
  });
});

describe('store config', () => {
  it('defaults to a SQLite file, picks PostgreSQL for a postgres:// URL, and names a bad value', () => {
    expect(loadStoreLocation({}).kind).toBe('sqlite');
    expect(loadStoreLocation({ CORPUS_STORE: '/data/passages.sqlite' })).toEqual({ kind: 'sqlite', file: '/data/passages.sqlite' });
    expect(loadStoreLocation({ CORPUS_STORE: 'postgres://u@db:5432/orrery' })).toEqual({ kind: 'postgres', url: 'postgres://u@db:5432/orrery', schema: 'orrery' });
    expect(() => loadStoreLocation({ CORPUS_STORE: 'postgres://u@db:5432/x', CORPUS_STORE_SCHEMA: 'Bad-Name' })).toThrow(/CORPUS_STORE_SCHEMA/);
  });

  it('keeps the default SQLite store per deployment, in a data folder named for it, not under the temp folder', () => {
    const a = loadStoreLocation({ QUEUE_PREFIX: 'blue' });
    const b = loadStoreLocation({ QUEUE_PREFIX: 'green' });
    expect(a).toEqual({ kind: 'sqlite', file: join(homedir(), '.local', 'share', 'orrery', 'blue', 'passages.sqlite') });
    expect(b).not.toEqual(a);
    expect(loadStoreLocation({}).kind === 'sqlite' && loadStoreLocation({}).file.startsWith(tmpdir())).toBe(false);
    expect(loadStoreLocation({ ORRERY_DATA_DIR: '/srv/orrery', QUEUE_PREFIX: 'blue' })).toEqual({ kind: 'sqlite', file: '/srv/orrery/blue/passages.sqlite' });
    expect(loadStoreLocation({ XDG_DATA_HOME: '/xdg', QUEUE_PREFIX: 'blue' })).toEqual({ kind: 'sqlite', file: '/xdg/orrery/blue/passages.sqlite' });
    expect(loadStoreLocation({})).toEqual({ kind: 'sqlite', file: join(homedir(), '.local', 'share', 'orrery', 'orrery', 'passages.sqlite') });
    expect(() => loadStoreLocation({ QUEUE_PREFIX: '../elsewhere' })).toThrow(/QUEUE_PREFIX/);
  });
});

describe('the SQLite store in a thread, bounded', () => {
  it('reads hashes a page at a time (the pages add up to the whole), in a thread with a bounded heap', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'orrery-store-')), 'paged.sqlite');
    const direct = new SqlitePassageStore(file);
    await direct.upsert('birds', CORPUS);
    const pages: string[][] = [];
    for (let page = await direct.hashPage('birds', 0, 2); page.entries.length; page = await direct.hashPage('birds', page.last, 2)) pages.push(page.entries.map(([id]) => id));
    expect(pages).toEqual([['kestrel-1', 'kestrel-2'], ['kestrel-3', 'falcon-1'], ['owl-1']]);
    expect(await direct.hashPage('no-such-corpus', 0, 2)).toEqual({ entries: [], last: 0 });
    const { ThreadedPassageStore, STORE_THREAD_LIMITS } = createRequire(__filename)(resolve(__dirname, '..', '..', 'dist', 'store', 'threaded-passage-store.js')) as typeof import('./threaded-passage-store');
    const threaded = new ThreadedPassageStore(file);
    try {
      expect(await storedHashes(threaded, 'birds')).toEqual(await storedHashes(direct, 'birds'));
      expect(await storedHashes(threaded, 'birds')).toEqual(new Map(CORPUS.map((p) => [p.id, p.contentHash])));
      // The thread's heap is collected within its bound, not let grow to V8's default for the machine.
      expect(threaded.threadLimits?.maxOldGenerationSizeMb).toBe(STORE_THREAD_LIMITS.maxOldGenerationSizeMb);
    } finally {
      await threaded.close();
      await direct.close();
    }
  });

  it('analyses a write in the calling thread while the store thread is busy with another (two cores at work), to the same terms', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'orrery-store-')), 'analysed.sqlite');
    const load = createRequire(__filename);
    const dist = resolve(__dirname, '..', '..', 'dist');
    const { ThreadedPassageStore } = load(join(dist, 'store', 'threaded-passage-store.js')) as typeof import('./threaded-passage-store');
    const { stemCacheSize } = load(resolve(dist, '..', '..', 'language', 'dist', 'text-analysis.js')) as typeof import('@orrery/language');
    const threaded = new ThreadedPassageStore(file);
    const direct = new SqlitePassageStore(':memory:');
    try {
      const rare = passage('rare-1', 'birds/rare', 'Quetzalcoatlus overshadowed pterosaurs everywhere.');
      const words = stemCacheSize();
      await threaded.upsert('birds', CORPUS);
      // Alone, the thread analysed it: no word reached this thread's stem cache.
      expect(stemCacheSize()).toBe(words);
      const more = passage('rare-2', 'birds/rare', 'Hoatzins ferment leaves.');
      await Promise.all([threaded.upsert('birds', [rare]), threaded.upsert('birds', [more])]);
      // The second came while the thread worked on the first: its words were stemmed here.
      expect(stemCacheSize()).toBeGreaterThan(words);
      await direct.upsert('birds', [...CORPUS, rare, more]);
      const ids = ['rare-1', 'rare-2', 'owl-1'];
      expect(await threaded.indexedTerms('birds', ids)).toEqual(await direct.indexedTerms('birds', ids));
      // A redone write changes nothing (the generation stays), analysed on either side.
      const g = await threaded.generation('birds');
      await Promise.all([threaded.upsert('birds', [rare]), threaded.upsert('birds', [more])]);
      expect(await threaded.generation('birds')).toBe(g);
    } finally {
      await threaded.close();
      await direct.close();
    }
  });

  it('PostgreSQL analyses a write in its analysis thread while that is idle and the next in the calling thread meanwhile, to the same terms', async () => {
    const load = createRequire(__filename);
    const dist = resolve(__dirname, '..', '..', 'dist');
    const { PostgresPassageStore: DistPostgres } = load(join(dist, 'store', 'postgres-passage-store.js')) as typeof import('./postgres-passage-store');
    const { stemCacheSize } = load(resolve(dist, '..', '..', 'language', 'dist', 'text-analysis.js')) as typeof import('@orrery/language');
    const pgSchema = `analysis_${randomBytes(4).toString('hex')}`;
    const pg = new DistPostgres({ url: PG_URL, schema: pgSchema });
    const direct = new SqlitePassageStore(':memory:');
    try {
      const words = stemCacheSize();
      await pg.upsert('birds', CORPUS);
      // Alone, the analysis thread took it: no word reached this thread's stem cache.
      expect(pg.analysisThreadRunning).toBe(true);
      expect(stemCacheSize()).toBe(words);
      // Two chunks, each long enough to keep the thread busy while the other reads its rows, sent at once.
      const chunk = (flock: string) =>
        Array.from({ length: 300 }, (_, i) => passage(`${flock}-${i}`, `birds/${flock}`, `${flock} ${i} of ${flock}s wheel over reedbeds at dusk, word${flock}${i}.`));
      const [starlings, rooks] = [chunk('starling'), chunk('rook')];
      // Sent at once to the analysis itself: the first goes to the thread, the second comes while the thread works on it,
      // and its words are stemmed here. (Through the store each write reads its rows first, so which analysis finds
      // the thread busy depends on how fast PostgreSQL answers.)
      const { TwoCoreAnalysis } = load(join(dist, 'store', 'threaded-analysis.js')) as typeof import('./threaded-analysis');
      const twoCores = new TwoCoreAnalysis();
      try {
        const [inThread, here] = await Promise.all([twoCores.analyse(starlings), twoCores.analyse(rooks)]);
        expect([inThread.length, here.length]).toEqual([300, 300]);
        expect(stemCacheSize()).toBeGreaterThan(words);
      } finally {
        await twoCores.close();
      }
      await Promise.all([pg.upsert('birds', starlings), pg.upsert('birds', rooks)]);
      await direct.upsert('birds', [...CORPUS, ...starlings, ...rooks]);
      const ids = [...CORPUS, ...starlings, ...rooks].map((p) => p.id);
      expect(await pg.indexedTerms('birds', ids)).toEqual(await direct.indexedTerms('birds', ids));
      // Once an ingest is over, its analysis thread ends at once rather than idle with its caches.
      expect(pg.analysisThreadRunning).toBe(true);
      pg.release();
      expect(pg.analysisThreadRunning).toBe(false);
    } finally {
      await pg.close();
      await direct.close();
      const c = new Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${pgSchema} CASCADE`).finally(() => c.end());
    }
  });

  it('ends an idle thread, so its heap goes back to the system, and starts another on the next call', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'orrery-store-')), 'idle.sqlite');
    const { ThreadedPassageStore } = createRequire(__filename)(resolve(__dirname, '..', '..', 'dist', 'store', 'threaded-passage-store.js')) as typeof import('./threaded-passage-store');
    const threaded = new ThreadedPassageStore(file, 200);
    try {
      expect(threaded.threadLimits).toBeNull();
      await threaded.upsert('birds', CORPUS);
      expect(threaded.threadLimits).not.toBeNull();
      await new Promise((r) => setTimeout(r, 600));
      expect(threaded.threadLimits).toBeNull();
      // A new thread, a new connection: what the first wrote is there.
      expect((await threaded.get('birds', ['owl-1'])).map((p) => p.id)).toEqual(['owl-1']);
      expect(threaded.threadLimits).not.toBeNull();
    } finally {
      await threaded.close();
    }
    await expect(threaded.get('birds', ['owl-1'])).rejects.toThrow(/closed/);
  });
});
