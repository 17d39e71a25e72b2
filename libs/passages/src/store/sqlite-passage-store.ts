import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { CorpusStats, CorpusStructure, IndexedTerms, PassageStore, TermStats, StoreCapabilities, StoredHash, StoredPassage, StoreHit, StoreSearchOptions } from './passage-store';
import { type AnalysedPassage, analyseChanged, capOf, cappedBest, changedFrom, HASH_PAGE, type HashPage, hashPagesFrom, inAskedOrder, KEPT_DERIVED, queryTerms, toPassage, turn, type KnownPassage, type PassageRow } from './store-query';

/**
 * The embedded store: one SQLite file in WAL mode, so every process on the machine reads it at once while
 * one writes. Each corpus has its own passage table and FTS5 index (so BM25's statistics are the corpus's
 * own); FTS5 keeps the analysed terms as an external-content index over the passage table.
 */
export class SqlitePassageStore implements PassageStore {
  readonly capabilities: StoreCapabilities = { shared: 'machine' };
  // better-sqlite3 is synchronous: every method first lets the event loop turn, so a series of queries
  // interleaves with timers and I/O instead of holding the loop for all of them.
  private readonly db: Database.Database;

  constructor(readonly file: string) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    // Writers from several processes queue on the file lock rather than fail.
    this.db.pragma('busy_timeout = 30000');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec('CREATE TABLE IF NOT EXISTS corpora (n INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)');
    this.db.exec('CREATE TABLE IF NOT EXISTS generations (name TEXT PRIMARY KEY, n INTEGER NOT NULL)');
    this.db.exec('CREATE TABLE IF NOT EXISTS sources (name TEXT PRIMARY KEY, fingerprint TEXT NOT NULL)');
    this.db.exec('CREATE TABLE IF NOT EXISTS structures (name TEXT PRIMARY KEY, generation INTEGER NOT NULL, structure TEXT NOT NULL)');
    // The generation each corpus's term-count table (`c<n>_df`) was counted at.
    this.db.exec('CREATE TABLE IF NOT EXISTS term_counts (name TEXT PRIMARY KEY, generation INTEGER NOT NULL, passages INTEGER NOT NULL)');
    this.db.exec('CREATE TABLE IF NOT EXISTS derived (name TEXT NOT NULL, key TEXT NOT NULL, generation INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (name, key))');
    // What kept working sets before `derived` did (a cache: nothing in it is lost).
    this.db.exec('DROP TABLE IF EXISTS working_sets');
  }

  async upsert(corpus: string, passages: readonly StoredPassage[]): Promise<void> {
    // Unchanged passages are not analysed again.
    await this.write(corpus, await analyseChanged(passages, this.known(corpus, passages)));
  }

  /** Passages analysed already (by the caller's thread, so a write's analysis and the write itself run at once). */
  async upsertAnalysed(corpus: string, analysed: readonly AnalysedPassage[]): Promise<void> {
    const known = this.known(corpus, analysed.map((a) => a.passage));
    await this.write(corpus, analysed.filter((a) => changedFrom(known.get(a.passage.id), a.passage)));
  }

  /** What the store holds now of these passages (id → hash and document). */
  private known(corpus: string, passages: readonly StoredPassage[]): Map<string, KnownPassage> {
    const t = this.table(corpus, false);
    if (!t || passages.length === 0) return new Map();
    const rows = this.db
      .prepare<[string], KnownPassage & { id: string }>(`SELECT id, content_hash, document FROM ${t} WHERE id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(passages.map((p) => p.id)));
    return new Map(rows.map((r) => [r.id, r]));
  }

  /** Writes the changed passages (a redone chunk has none: it touches neither the table nor the index). */
  private async write(corpus: string, changed: readonly AnalysedPassage[]): Promise<void> {
    if (changed.length === 0) return;
    await turn();
    const t = this.table(corpus, true)!;
    const write = this.db.prepare(
      `INSERT INTO ${t} (id, document, title, url, text, content_hash, terms, title_terms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET document = excluded.document, title = excluded.title, url = excluded.url, text = excluded.text,
         content_hash = excluded.content_hash, terms = excluded.terms, title_terms = excluded.title_terms`,
    );
    this.db
      .transaction(() => {
        for (const { passage: p, terms } of changed) write.run(p.id, p.document, p.title, p.url ?? null, p.text, p.contentHash, terms.text, terms.title);
        this.bump(corpus);
      })
      .immediate();
  }

  hashPages(corpus: string): AsyncGenerator<readonly StoredHash[]> {
    return hashPagesFrom((after) => this.hashPage(corpus, after, HASH_PAGE));
  }

  /** Up to `limit` passages' (id, content hash) after the row `after` (0: from the first), and the last row read. */
  async hashPage(corpus: string, after: number, limit: number): Promise<HashPage> {
    await turn();
    const t = this.table(corpus, false);
    if (!t) return { entries: [], last: after };
    const rows = this.db
      .prepare<[number, number], [number, string, string]>(`SELECT rowid, id, content_hash FROM ${t} WHERE rowid > ? ORDER BY rowid LIMIT ?`)
      .raw()
      .all(after, limit);
    return { entries: rows.map(([, id, hash]) => [id, hash]), last: rows.length ? rows[rows.length - 1]![0] : after };
  }

  async remove(corpus: string, ids: readonly string[]): Promise<void> {
    await turn();
    const t = this.table(corpus, false);
    if (!t || ids.length === 0) return;
    this.db
      .transaction(() => {
        if (this.db.prepare(`DELETE FROM ${t} WHERE id IN (SELECT value FROM json_each(?))`).run(JSON.stringify(ids)).changes > 0) this.bump(corpus);
      })
      .immediate();
  }

  async drop(corpus: string): Promise<boolean> {
    await turn();
    let had = false;
    this.db
      .transaction(() => {
        const t = this.table(corpus, false);
        if (!t) return;
        had = this.db.prepare(`SELECT EXISTS (SELECT 1 FROM ${t})`).pluck().get() === 1;
        this.db.exec(`DROP TABLE IF EXISTS temp.${t}_vocab; DROP TABLE IF EXISTS ${t}_df; DROP TABLE IF EXISTS ${t}_fts; DROP TABLE IF EXISTS ${t}`);
        this.db.prepare('DELETE FROM corpora WHERE name = ?').run(corpus);
        this.db.prepare('DELETE FROM sources WHERE name = ?').run(corpus);
        this.db.prepare('DELETE FROM structures WHERE name = ?').run(corpus);
        this.db.prepare('DELETE FROM term_counts WHERE name = ?').run(corpus);
        this.db.prepare('DELETE FROM derived WHERE name = ?').run(corpus);
        this.bump(corpus);
      })
      .immediate();
    return had;
  }

  async sourceFingerprint(corpus: string): Promise<string | null> {
    await turn();
    return this.db.prepare<[string], { fingerprint: string }>('SELECT fingerprint FROM sources WHERE name = ?').get(corpus)?.fingerprint ?? null;
  }

  async setSourceFingerprint(corpus: string, fingerprint: string | null): Promise<void> {
    await turn();
    if (fingerprint === null) this.db.prepare('DELETE FROM sources WHERE name = ?').run(corpus);
    else this.db.prepare('INSERT INTO sources (name, fingerprint) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET fingerprint = excluded.fingerprint').run(corpus, fingerprint);
  }

  async generation(corpus: string): Promise<number> {
    await turn();
    return this.db.prepare<[string], { n: number }>('SELECT n FROM generations WHERE name = ?').get(corpus)?.n ?? 0;
  }

  async structure(corpus: string, generation: number): Promise<CorpusStructure | null> {
    await turn();
    const json = this.db.prepare<[string, number], string>('SELECT structure FROM structures WHERE name = ? AND generation = ?').pluck().get(corpus, generation);
    return json === undefined ? null : (JSON.parse(json) as CorpusStructure);
  }

  async keepStructure(corpus: string, generation: number, structure: CorpusStructure): Promise<boolean> {
    await turn();
    const json = JSON.stringify(structure);
    // Only while the corpus is at that generation (a write bumps it in its own transaction).
    const kept = this.db
      .prepare<[string, number, string, string, number]>(
        `INSERT INTO structures (name, generation, structure) SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM generations WHERE name = ? AND n = ?)
         ON CONFLICT(name) DO UPDATE SET generation = excluded.generation, structure = excluded.structure`,
      )
      .run(corpus, generation, json, corpus, generation);
    return kept.changes > 0;
  }

  async derived(corpus: string, key: string, generation: number): Promise<string | null> {
    await turn();
    return (
      this.db
        .prepare<[string, string, number], string>('SELECT d.value FROM derived d JOIN generations g ON g.name = d.name AND g.n = d.generation WHERE d.name = ? AND d.key = ? AND d.generation = ?')
        .pluck()
        .get(corpus, key, generation) ?? null
    );
  }

  async keepDerived(corpus: string, key: string, generation: number, value: string): Promise<void> {
    await turn();
    this.db
      .transaction(() => {
        if (((this.db.prepare<[string], number>('SELECT n FROM generations WHERE name = ?').pluck().get(corpus)) ?? 0) !== generation) return;
        this.db.prepare('DELETE FROM derived WHERE name = ? AND generation <> ?').run(corpus, generation);
        this.db.prepare('INSERT OR REPLACE INTO derived (name, key, generation, value) VALUES (?, ?, ?, ?)').run(corpus, key, generation, value);
        // Bounded: the most recently kept values of a corpus.
        this.db.prepare(`DELETE FROM derived WHERE name = ? AND rowid NOT IN (SELECT rowid FROM derived WHERE name = ? ORDER BY rowid DESC LIMIT ${KEPT_DERIVED})`).run(corpus, corpus);
      })
      .immediate();
  }

  private bump(corpus: string): void {
    this.db.prepare('INSERT INTO generations (name, n) VALUES (?, 1) ON CONFLICT(name) DO UPDATE SET n = n + 1').run(corpus);
  }

  async search(corpus: string, query: string, options: StoreSearchOptions): Promise<StoreHit[]> {
    return this.searchTerms(corpus, await queryTerms(query), options);
  }

  /** Search by already-analysed query terms (what a caller in another thread sends). */
  async searchTerms(corpus: string, terms: readonly string[], options: StoreSearchOptions): Promise<StoreHit[]> {
    await turn();
    const t = this.table(corpus, false);
    const { limit, perDocument } = capOf(options);
    if (!t || terms.length === 0 || limit === 0 || perDocument === 0) return [];
    const match = terms.map((term) => `"${term.replace(/"/g, '""')}"`).join(' OR ');
    // Title terms count half, as in the in-memory index; bm25() is lower-is-better, so negated. Only the best-scored
    // matches are joined to their passages (a common term matches most of the corpus): read in one snapshot.
    const best = this.db.prepare<[string, number], { r: number; score: number }>(`SELECT rowid AS r, -bm25(${t}_fts, 1.0, 0.5) AS score FROM ${t}_fts WHERE ${t}_fts MATCH ? ORDER BY score DESC LIMIT ?`);
    const rows = this.db.prepare<[string], { r: number; id: string; document: string }>(`SELECT rowid AS r, id, document FROM ${t} WHERE rowid IN (SELECT value FROM json_each(?))`);
    return this.db.transaction(() => {
      for (let k = 2 * limit; ; k *= 4) {
        const scored = best.all(match, k + 1);
        const all = scored.length <= k;
        // Cut above the last row's score, so a tie at the cut is wholly in or out: every match left out scores below every one kept.
        const kept = all ? scored : scored.filter((x) => x.score > scored[k]!.score);
        const score = new Map(kept.map((x) => [x.r, x.score]));
        const hits = rows.all(JSON.stringify(kept.map((x) => x.r))).map((x) => ({ id: x.id, document: x.document, score: score.get(x.r)! }));
        const capped = cappedBest(hits, perDocument, limit);
        if (all || capped.length === limit) return capped;
      }
    })();
  }

  async get(corpus: string, ids: readonly string[]): Promise<StoredPassage[]> {
    await turn();
    const t = this.table(corpus, false);
    if (!t || ids.length === 0) return [];
    const rows = this.db
      .prepare<[string], PassageRow>(`SELECT id, document, title, url, text, content_hash FROM ${t} WHERE id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(ids));
    return inAskedOrder(ids, rows.map(toPassage));
  }

  async passageIds(corpus: string, limit: number): Promise<string[]> {
    await turn();
    const t = this.table(corpus, false);
    if (!t) return [];
    return this.db.prepare<[number], string>(`SELECT id FROM ${t} ORDER BY rowid LIMIT ?`).pluck().all(Math.max(0, Math.floor(limit)));
  }

  async indexedTerms(corpus: string, ids: readonly string[]): Promise<IndexedTerms[]> {
    await turn();
    const t = this.table(corpus, false);
    if (!t || ids.length === 0) return [];
    const rows = this.db
      .prepare<[string], IndexedTerms>(`SELECT id, terms AS text, title_terms AS title FROM ${t} WHERE id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(ids));
    return inAskedOrder(ids, rows);
  }

  async termStats(corpus: string, terms: readonly string[]): Promise<TermStats> {
    await turn();
    const t = this.table(corpus, false);
    if (!t) return { passages: 0, df: new Map() };
    const passages = this.termCounts(corpus, t);
    const rows = this.db.prepare<[string], { term: string; doc: number }>(`SELECT term, doc FROM ${t}_df WHERE term IN (SELECT value FROM json_each(?))`).all(JSON.stringify([...new Set(terms)]));
    return { passages, df: new Map(rows.map((r) => [r.term, r.doc])) };
  }

  async keepTermCounts(corpus: string): Promise<void> {
    await turn();
    const t = this.table(corpus, false);
    if (t) this.termCounts(corpus, t);
  }

  /**
   * The corpus's term counts as a table (term, passages holding it), rebuilt once per generation by the first reader
   * that finds it stale; returns the passage count they were taken over. Counting a term in the FTS5 index reads its
   * whole posting list, so looking up a working set's vocabulary there costs about what one scan of every term does:
   * after that scan, every process's lookups are index reads.
   */
  private termCounts(corpus: string, t: string): number {
    const current = () =>
      this.db.prepare<[string], { passages: number }>('SELECT c.passages FROM term_counts c JOIN generations g ON g.name = c.name AND g.n = c.generation WHERE c.name = ?').get(corpus)?.passages;
    const known = current();
    if (known !== undefined) return known;
    // A vocabulary view of the FTS5 index in this connection's temp schema.
    this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${t}_vocab USING fts5vocab(main, ${t}_fts, row)`);
    return this.db
      .transaction(() => {
        const raced = current();
        if (raced !== undefined) return raced;
        this.db.exec(`CREATE TABLE IF NOT EXISTS ${t}_df (term TEXT PRIMARY KEY, doc INTEGER NOT NULL) WITHOUT ROWID; DELETE FROM ${t}_df;
          INSERT INTO ${t}_df (term, doc) SELECT term, doc FROM temp.${t}_vocab`);
        const passages = this.db.prepare<[], number>(`SELECT count(*) FROM ${t}`).pluck().get()!;
        const generation = this.db.prepare<[string], number>('SELECT n FROM generations WHERE name = ?').pluck().get(corpus) ?? 0;
        this.db
          .prepare('INSERT INTO term_counts (name, generation, passages) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET generation = excluded.generation, passages = excluded.passages')
          .run(corpus, generation, passages);
        return passages;
      })
      .immediate();
  }

  async stats(corpus: string): Promise<CorpusStats> {
    await turn();
    const t = this.table(corpus, false);
    if (!t) return { passages: 0, documents: 0 };
    return this.db.prepare<[], CorpusStats>(`SELECT count(*) AS passages, count(DISTINCT document) AS documents FROM ${t}`).get()!;
  }

  async passageCount(corpus: string, atMost: number): Promise<number> {
    await turn();
    const t = this.table(corpus, false);
    if (!t) return 0;
    return this.db.prepare<[number], number>(`SELECT count(*) FROM (SELECT 1 FROM ${t} LIMIT ?)`).pluck().get(Math.max(0, Math.floor(atMost)))!;
  }

  async corpora(): Promise<string[]> {
    await turn();
    const names = this.db.prepare<[], string>('SELECT name FROM corpora ORDER BY name').pluck().all();
    return names.filter((name) => this.db.prepare(`SELECT EXISTS (SELECT 1 FROM ${this.table(name, false)!})`).pluck().get() === 1);
  }

  /** Nothing to free: the connection is all it holds (the thread around it, where there is one, is freed). */
  release(): void {}

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  /**
   * The corpus's table name (`c<n>`, n from the corpora table, so any corpus name is safe in SQL); created on first write.
   * Looked up on every call, never cached: another process may have dropped the corpus since.
   */
  private table(corpus: string, create: boolean): string | null {
    const find = () => this.db.prepare<[string], { n: number }>('SELECT n FROM corpora WHERE name = ?').get(corpus);
    let row = find();
    if (!row && !create) return null;
    if (!row) {
      // IMMEDIATE: two processes creating the same corpus serialise here; the second finds the first's row.
      this.db.transaction(() => {
        if (!find()) this.db.prepare('INSERT INTO corpora (name) VALUES (?)').run(corpus);
        const n = find()!.n;
        this.db.exec(schema(`c${n}`));
      }).immediate();
      row = find()!;
    }
    return `c${row.n}`;
  }
}

function schema(t: string): string {
  // Analysed terms are lowercase stems and numbers like 1,000 or 3.5: only spaces separate them.
  return `
    CREATE TABLE IF NOT EXISTS ${t} (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, document TEXT NOT NULL, title TEXT NOT NULL,
      url TEXT, text TEXT NOT NULL, content_hash TEXT NOT NULL, terms TEXT NOT NULL, title_terms TEXT NOT NULL);
    CREATE INDEX IF NOT EXISTS ${t}_document ON ${t} (document);
    CREATE VIRTUAL TABLE IF NOT EXISTS ${t}_fts USING fts5(terms, title_terms, content='${t}', content_rowid='rowid',
      tokenize="unicode61 remove_diacritics 0 tokenchars '.,-_'");
    CREATE TRIGGER IF NOT EXISTS ${t}_ai AFTER INSERT ON ${t} BEGIN
      INSERT INTO ${t}_fts (rowid, terms, title_terms) VALUES (new.rowid, new.terms, new.title_terms); END;
    CREATE TRIGGER IF NOT EXISTS ${t}_ad AFTER DELETE ON ${t} BEGIN
      INSERT INTO ${t}_fts (${t}_fts, rowid, terms, title_terms) VALUES ('delete', old.rowid, old.terms, old.title_terms); END;
    CREATE TRIGGER IF NOT EXISTS ${t}_au AFTER UPDATE ON ${t} BEGIN
      INSERT INTO ${t}_fts (${t}_fts, rowid, terms, title_terms) VALUES ('delete', old.rowid, old.terms, old.title_terms);
      INSERT INTO ${t}_fts (rowid, terms, title_terms) VALUES (new.rowid, new.terms, new.title_terms); END;`;
}
