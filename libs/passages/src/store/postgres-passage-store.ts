import { Pool, type PoolClient } from 'pg';
import { storeError } from './store-unavailable';
import { TwoCoreAnalysis } from './threaded-analysis';
import type { CorpusStats, CorpusStructure, IndexedTerms, PassageStore, TermStats, StoreCapabilities, StoredHash, StoredPassage, StoreHit, StoreSearchOptions } from './passage-store';
import { capOf, cappedBest, changedFrom, HASH_PAGE, inAskedOrder, KEPT_DERIVED, queryTerms, toPassage, type PassageRow } from './store-query';

export interface PostgresStoreOptions {
  /** A `postgres://` connection string. */
  url: string;
  /** Schema holding the store's table (default `orrery`); tests use one of their own. */
  schema?: string;
  /** Most connections this process opens (default 4). */
  maxConnections?: number;
  /** Passages a search's match may read before its commonest terms only rank (`selectiveTerms`; default 50,000). */
  matchBudget?: number;
}

/** Matches a search ranks first, per hit asked for (more when the per-document cap leaves too few). */
const FIRST_READ = 4;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** A corpus this small is read whole by any plan; from here on, each doubling refreshes the statistics. */
const ANALYZE_FROM = 1000;

/**
 * The networked store, for workers on several machines: one table of every corpus's passages with a
 * generated tsvector of the analysed terms (text weight A, title weight B) under a GIN index.
 * The terms are already stemmed and stop-word free, so the `simple` configuration only splits them.
 * A write that doubles a corpus refreshes the planner's statistics (`ANALYZE`): on none, or on some taken before a bulk
 * ingest, the planner takes a corpus for small and reads all of it to look up a chunk's or a working set's ids (or all
 * its term counts for a working set's vocabulary).
 */
export class PostgresPassageStore implements PassageStore {
  readonly capabilities: StoreCapabilities = { shared: 'network' };
  private readonly pool: StorePool;
  private readonly table: string;
  /** Per corpus and term, the passages that contain it (kept by every write: the GIN index cannot count cheaply). */
  private readonly dfTable: string;
  /** Per corpus, its passage count (kept by every write: counting a large corpus's rows reads all of them) and the count at its last `ANALYZE`. */
  private readonly counts: string;
  private readonly generations: string;
  private readonly sources: string;
  private readonly structures: string;
  private readonly derivedTable: string;
  private ready: Promise<void> | null = null;
  private readonly analysis = new TwoCoreAnalysis();
  private readonly matchBudget: number;

  constructor(private readonly options: PostgresStoreOptions) {
    const schema = options.schema ?? 'orrery';
    if (!SCHEMA_NAME.test(schema)) throw new Error(`PostgreSQL schema ${JSON.stringify(schema)} must be lowercase letters, digits and _`);
    this.table = `${schema}.passages`;
    this.dfTable = `${schema}.term_df`;
    this.counts = `${schema}.passage_counts`;
    this.generations = `${schema}.generations`;
    this.sources = `${schema}.sources`;
    this.structures = `${schema}.structures`;
    this.derivedTable = `${schema}.derived`;
    this.matchBudget = options.matchBudget ?? 50_000;
    // allowExitOnIdle: idle connections never keep a finished CLI process alive.
    this.pool = new StorePool(new Pool({ connectionString: options.url, max: options.maxConnections ?? 4, allowExitOnIdle: true }));
  }

  async upsert(corpus: string, passages: readonly StoredPassage[]): Promise<void> {
    if (passages.length === 0) return;
    await this.schemaReady();
    const ids = passages.map((p) => p.id);
    const hashes = await this.pool.query<{ id: string; content_hash: string; document: string }>(
      `SELECT id, content_hash, document FROM ${this.table} WHERE corpus = $1 AND id = ANY($2::text[])`,
      [corpus, ids],
    );
    // Unchanged passages are not rewritten: a redone chunk changes nothing. Analysed before the transaction.
    const known = new Map(hashes.rows.map((r) => [r.id, r]));
    const changed = await this.analysis.analyse(passages.filter((p) => changedFrom(known.get(p.id), p)));
    if (changed.length === 0) return;
    await this.transaction(async (c) => {
      // Writers to one corpus take turns (as on SQLite), so each sees the rows it replaces and the term counts stay exact.
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`orrery-store-write:${this.table}:${corpus}`]);
      // The rows as they are now (another writer may have written some since): their terms leave the counts.
      const old = await c.query<{ terms: string; title_terms: string }>(
        `SELECT terms, title_terms FROM ${this.table} WHERE corpus = $1 AND id = ANY($2::text[]) ORDER BY id FOR UPDATE`,
        [corpus, changed.map((x) => x.passage.id)],
      );
      await c.query(
        `INSERT INTO ${this.table} (corpus, id, document, title, url, text, content_hash, terms, title_terms)
         SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
         ON CONFLICT (corpus, id) DO UPDATE SET document = excluded.document, title = excluded.title, url = excluded.url, text = excluded.text,
           content_hash = excluded.content_hash, terms = excluded.terms, title_terms = excluded.title_terms`,
        [
          corpus,
          changed.map((x) => x.passage.id),
          changed.map((x) => x.passage.document),
          changed.map((x) => x.passage.title),
          changed.map((x) => x.passage.url ?? null),
          changed.map((x) => x.passage.text),
          changed.map((x) => x.passage.contentHash),
          changed.map((x) => x.terms.text),
          changed.map((x) => x.terms.title),
        ],
      );
      const delta = new Map<string, number>();
      for (const r of old.rows) countTerms(delta, r.terms, r.title_terms, -1);
      for (const x of changed) countTerms(delta, x.terms.text, x.terms.title, 1);
      await this.addDf(c, corpus, delta);
      // The rows read above are those replaced; the others are new.
      await this.addPassages(c, corpus, changed.length - old.rows.length);
      await this.bump(c, corpus);
    });
  }

  async sourceFingerprint(corpus: string): Promise<string | null> {
    await this.schemaReady();
    const { rows } = await this.pool.query<{ fingerprint: string }>(`SELECT fingerprint FROM ${this.sources} WHERE corpus = $1`, [corpus]);
    return rows[0]?.fingerprint ?? null;
  }

  async setSourceFingerprint(corpus: string, fingerprint: string | null): Promise<void> {
    await this.schemaReady();
    if (fingerprint === null) await this.pool.query(`DELETE FROM ${this.sources} WHERE corpus = $1`, [corpus]);
    else await this.pool.query(`INSERT INTO ${this.sources} (corpus, fingerprint) VALUES ($1, $2) ON CONFLICT (corpus) DO UPDATE SET fingerprint = excluded.fingerprint`, [corpus, fingerprint]);
  }

  async generation(corpus: string): Promise<number> {
    await this.schemaReady();
    const { rows } = await this.pool.query<{ n: string }>(`SELECT n FROM ${this.generations} WHERE corpus = $1`, [corpus]);
    return rows[0] ? Number(rows[0].n) : 0;
  }

  async structure(corpus: string, generation: number): Promise<CorpusStructure | null> {
    await this.schemaReady();
    const { rows } = await this.pool.query<{ structure: string }>(`SELECT structure FROM ${this.structures} WHERE corpus = $1 AND generation = $2`, [corpus, generation]);
    return rows[0] ? (JSON.parse(rows[0].structure) as CorpusStructure) : null;
  }

  async keepStructure(corpus: string, generation: number, structure: CorpusStructure): Promise<boolean> {
    await this.schemaReady();
    // Only while the corpus is at that generation; a write that commits after this keeps it tagged with the old one.
    const { rowCount } = await this.pool.query(
      `INSERT INTO ${this.structures} (corpus, generation, structure) SELECT $1, $2, $3 WHERE EXISTS (SELECT 1 FROM ${this.generations} WHERE corpus = $1 AND n = $2)
       ON CONFLICT (corpus) DO UPDATE SET generation = excluded.generation, structure = excluded.structure`,
      [corpus, generation, JSON.stringify(structure)],
    );
    return (rowCount ?? 0) > 0;
  }

  async derived(corpus: string, key: string, generation: number): Promise<string | null> {
    await this.schemaReady();
    const { rows } = await this.pool.query<{ value: string }>(
      `SELECT d.value FROM ${this.derivedTable} d JOIN ${this.generations} g ON g.corpus = d.corpus AND g.n = d.generation WHERE d.corpus = $1 AND d.key = $2 AND d.generation = $3`,
      [corpus, key, generation],
    );
    return rows[0]?.value ?? null;
  }

  async keepDerived(corpus: string, key: string, generation: number, value: string): Promise<void> {
    await this.transaction(async (c) => {
      // A write that commits after this check leaves a row no reader matches to the new generation.
      const { rows } = await c.query<{ n: string }>(`SELECT n FROM ${this.generations} WHERE corpus = $1`, [corpus]);
      if (Number(rows[0]?.n ?? 0) !== generation) return;
      await c.query(`DELETE FROM ${this.derivedTable} WHERE corpus = $1 AND generation <> $2`, [corpus, generation]);
      await c.query(
        `INSERT INTO ${this.derivedTable} (corpus, key, generation, value) VALUES ($1, $2, $3, $4)
         ON CONFLICT (corpus, key) DO UPDATE SET generation = excluded.generation, value = excluded.value, kept = clock_timestamp()`,
        [corpus, key, generation, value],
      );
      await c.query(
        `DELETE FROM ${this.derivedTable} WHERE corpus = $1 AND key NOT IN (SELECT key FROM ${this.derivedTable} WHERE corpus = $1 ORDER BY kept DESC, key LIMIT ${KEPT_DERIVED})`,
        [corpus],
      );
    });
  }

  private async bump(c: PoolClient, corpus: string): Promise<void> {
    await c.query(`INSERT INTO ${this.generations} (corpus, n) VALUES ($1, 1) ON CONFLICT (corpus) DO UPDATE SET n = ${this.generations}.n + 1`, [corpus]);
  }

  private async addPassages(c: PoolClient, corpus: string, n: number): Promise<void> {
    if (n === 0) return;
    const { rows } = await c.query<{ passages: string; analyzed: string }>(
      `INSERT INTO ${this.counts} (corpus, passages) VALUES ($1, $2) ON CONFLICT (corpus) DO UPDATE SET passages = ${this.counts}.passages + excluded.passages
       RETURNING passages, analyzed`,
      [corpus, n],
    );
    const passages = Number(rows[0]!.passages);
    if (passages < ANALYZE_FROM || passages < 2 * Number(rows[0]!.analyzed)) return;
    // About a second at 1M passages (a sample of rows), once per doubling. Autovacuum may be off, and runs at most once a minute.
    // The term counts grow with the passages, and are looked up the same way (a working set's vocabulary).
    await c.query(`ANALYZE ${this.table}, ${this.dfTable}`);
    await c.query(`UPDATE ${this.counts} SET analyzed = passages WHERE corpus = $1`, [corpus]);
  }

  /** Apply document-frequency changes, in term order (so concurrent writers lock rows in one order and never deadlock). */
  private async addDf(c: PoolClient, corpus: string, delta: Map<string, number>): Promise<void> {
    const entries = [...delta.entries()].filter(([, n]) => n !== 0).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    if (entries.length === 0) return;
    await c.query(
      `INSERT INTO ${this.dfTable} (corpus, term, df) SELECT $1, term, n FROM unnest($2::text[], $3::int[]) AS d(term, n) ORDER BY term
       ON CONFLICT (corpus, term) DO UPDATE SET df = ${this.dfTable}.df + excluded.df`,
      [corpus, entries.map((e) => e[0]), entries.map((e) => e[1])],
    );
  }

  async *hashPages(corpus: string): AsyncGenerator<readonly StoredHash[]> {
    await this.schemaReady();
    // Keyset pages in primary-key order: each is one index range read.
    for (let after: string | null = null; ; ) {
      const { rows }: { rows: [string, string][] } = await this.pool.query({
        text: `SELECT id, content_hash FROM ${this.table} WHERE corpus = $1 AND ($2::text IS NULL OR id > $2) ORDER BY id LIMIT $3`,
        values: [corpus, after, HASH_PAGE],
        rowMode: 'array',
      });
      if (rows.length === 0) return;
      yield rows;
      after = rows[rows.length - 1]![0];
    }
  }

  async remove(corpus: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.transaction(async (c) => {
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`orrery-store-write:${this.table}:${corpus}`]);
      const { rows } = await c.query<{ terms: string; title_terms: string }>(
        `DELETE FROM ${this.table} WHERE corpus = $1 AND id = ANY($2::text[]) RETURNING terms, title_terms`,
        [corpus, [...ids]],
      );
      const delta = new Map<string, number>();
      for (const r of rows) countTerms(delta, r.terms, r.title_terms, -1);
      await this.addDf(c, corpus, delta);
      await this.addPassages(c, corpus, -rows.length);
      if (rows.length > 0) await this.bump(c, corpus);
    });
  }

  async drop(corpus: string): Promise<boolean> {
    let had = false;
    await this.transaction(async (c) => {
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`orrery-store-write:${this.table}:${corpus}`]);
      had = ((await c.query(`DELETE FROM ${this.table} WHERE corpus = $1`, [corpus])).rowCount ?? 0) > 0;
      await c.query(`DELETE FROM ${this.dfTable} WHERE corpus = $1`, [corpus]);
      await c.query(`DELETE FROM ${this.counts} WHERE corpus = $1`, [corpus]);
      await c.query(`DELETE FROM ${this.sources} WHERE corpus = $1`, [corpus]);
      await c.query(`DELETE FROM ${this.structures} WHERE corpus = $1`, [corpus]);
      await c.query(`DELETE FROM ${this.derivedTable} WHERE corpus = $1`, [corpus]);
      await this.bump(c, corpus);
    });
    return had;
  }

  async search(corpus: string, query: string, options: StoreSearchOptions): Promise<StoreHit[]> {
    const terms = await queryTerms(query);
    const { limit, perDocument } = capOf(options);
    if (terms.length === 0 || limit === 0 || perDocument === 0) return [];
    await this.schemaReady();
    const all = tsquery(terms);
    const selective = await this.selectiveTerms(corpus, terms, FIRST_READ * limit);
    if (selective.length < terms.length) {
      const hits = await this.ranked(corpus, all, tsquery(selective), limit, perDocument);
      if (hits.length === limit) return hits;
    }
    return this.ranked(corpus, all, all, limit, perDocument);
  }

  /**
   * The query's rarest terms: as many as match at most `matchBudget` passages together, and more while they match fewer
   * than `wanted`. A query that also holds words most passages share ("file", "use") matches most of a large corpus,
   * and every match is read to be ranked (3 s a search at a million passages); a passage holding none of the rarer
   * terms is no hit of the topic, though ts_rank, which does not weigh terms by rarity, could rank it first.
   */
  private async selectiveTerms(corpus: string, terms: readonly string[], wanted: number): Promise<string[]> {
    const { df } = await this.termStats(corpus, terms);
    const kept: string[] = [];
    let matched = 0;
    for (const t of [...terms].sort((a, b) => (df.get(a) ?? 0) - (df.get(b) ?? 0))) {
      const more = matched + (df.get(t) ?? 0);
      if (matched >= wanted && more > this.matchBudget) break;
      kept.push(t);
      matched = more;
    }
    return kept;
  }

  /** The best hits by ts_rank for `rank`, among the passages matching `match`, capped per document. */
  private async ranked(corpus: string, rank: string, match: string, limit: number, perDocument: number): Promise<StoreHit[]> {
    // Every match is ranked (GIN keeps no positions), but only the best are sorted and read out: in the order
    // cappedBest applies (ids by code point), so they are the head of the ranking of every match, capped per document here.
    const best = `SELECT id, document, ts_rank(tsv, q) AS score FROM ${this.table}, to_tsquery('simple', $2) q, to_tsquery('simple', $4) m
      WHERE corpus = $1 AND tsv @@ m ORDER BY score DESC, id COLLATE "C" LIMIT $3`;
    for (let k = FIRST_READ * limit; ; k *= 4) {
      const { rows } = await this.pool.query<{ id: string; document: string; score: number }>(best, [corpus, rank, k, match]);
      const capped = cappedBest(rows, perDocument, limit);
      if (rows.length < k || capped.length === limit) return capped;
    }
  }

  async get(corpus: string, ids: readonly string[]): Promise<StoredPassage[]> {
    if (ids.length === 0) return [];
    await this.schemaReady();
    const { rows } = await this.pool.query<PassageRow>(
      `SELECT id, document, title, url, text, content_hash FROM ${this.table} WHERE corpus = $1 AND id = ANY($2::text[])`,
      [corpus, [...ids]],
    );
    return inAskedOrder(ids, rows.map(toPassage));
  }

  async passageIds(corpus: string, limit: number): Promise<string[]> {
    await this.schemaReady();
    const { rows } = await this.pool.query<{ id: string }>(`SELECT id FROM ${this.table} WHERE corpus = $1 ORDER BY seq LIMIT $2`, [corpus, Math.max(0, Math.floor(limit))]);
    return rows.map((r) => r.id);
  }

  async indexedTerms(corpus: string, ids: readonly string[]): Promise<IndexedTerms[]> {
    if (ids.length === 0) return [];
    await this.schemaReady();
    const { rows } = await this.pool.query<IndexedTerms>(
      `SELECT id, terms AS text, title_terms AS title FROM ${this.table} WHERE corpus = $1 AND id = ANY($2::text[])`,
      [corpus, [...ids]],
    );
    return inAskedOrder(ids, rows);
  }

  async termStats(corpus: string, terms: readonly string[]): Promise<TermStats> {
    await this.schemaReady();
    const { rows } = await this.pool.query<{ term: string; df: number }>(`SELECT term, df FROM ${this.dfTable} WHERE corpus = $1 AND term = ANY($2::text[]) AND df > 0`, [corpus, [...new Set(terms)]]);
    return { passages: await this.passages(corpus), df: new Map(rows.map((r) => [r.term, Number(r.df)])) };
  }

  /** Every write keeps `term_df` current. */
  async keepTermCounts(): Promise<void> {}

  async stats(corpus: string): Promise<CorpusStats> {
    await this.schemaReady();
    const { rows } = await this.pool.query<{ passages: string; documents: string }>(
      `SELECT count(*) AS passages, count(DISTINCT document) AS documents FROM ${this.table} WHERE corpus = $1`,
      [corpus],
    );
    return { passages: Number(rows[0]!.passages), documents: Number(rows[0]!.documents) };
  }

  async passageCount(corpus: string, atMost: number): Promise<number> {
    await this.schemaReady();
    return Math.min(await this.passages(corpus), Math.max(0, Math.floor(atMost)));
  }

  private async passages(corpus: string): Promise<number> {
    const { rows } = await this.pool.query<{ passages: string }>(`SELECT passages FROM ${this.counts} WHERE corpus = $1`, [corpus]);
    return rows[0] ? Number(rows[0].passages) : 0;
  }

  async corpora(): Promise<string[]> {
    await this.schemaReady();
    // Every write bumps its corpus's generation, so the generations table names every corpus ever written.
    const { rows } = await this.pool.query<{ corpus: string }>(
      `SELECT g.corpus FROM ${this.generations} g WHERE EXISTS (SELECT 1 FROM ${this.table} p WHERE p.corpus = g.corpus) ORDER BY g.corpus COLLATE "C"`,
    );
    return rows.map((r) => r.corpus);
  }

  /** Whether a write is being analysed, or was lately, in the store's analysis thread (for tests: it ends once idle). */
  get analysisThreadRunning(): boolean {
    return this.analysis.threadRunning;
  }

  /** Ends the analysis thread an ingest used (the pool's connections end on their own once idle). */
  release(): void {
    this.analysis.release();
  }

  async close(): Promise<void> {
    await this.analysis.close();
    await this.pool.end();
  }

  private schemaReady(): Promise<void> {
    this.ready ??= this.createSchema().catch((err: unknown) => {
      this.ready = null;
      throw err;
    });
    return this.ready;
  }

  private async createSchema(): Promise<void> {
    const schema = this.table.split('.')[0]!;
    await this.inTransaction(async (c) => {
      // Concurrent CREATE ... IF NOT EXISTS can still collide in the catalogue: processes take turns.
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`orrery-store:${schema}`]);
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await c.query(`CREATE TABLE IF NOT EXISTS ${this.table} (
        corpus text NOT NULL, id text NOT NULL, document text NOT NULL, title text NOT NULL, url text, text text NOT NULL,
        content_hash text NOT NULL, terms text NOT NULL, title_terms text NOT NULL,
        tsv tsvector GENERATED ALWAYS AS (setweight(to_tsvector('simple', terms), 'A') || setweight(to_tsvector('simple', title_terms), 'B')) STORED,
        PRIMARY KEY (corpus, id))`);
      // Write order (an upsert keeps a passage's first place): a whole-corpus index reads passages in their source's order.
      // A table made before the column gets it once (ALTER takes the table's lock, so not on every start).
      const [table] = this.table.split('.').slice(1);
      const { rowCount } = await c.query(`SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND column_name = 'seq'`, [schema, table]);
      if (!rowCount) await c.query(`ALTER TABLE ${this.table} ADD COLUMN seq bigserial`);
      await c.query(`CREATE INDEX IF NOT EXISTS passages_tsv ON ${this.table} USING gin (tsv)`);
      await c.query(`CREATE INDEX IF NOT EXISTS passages_document ON ${this.table} (corpus, document)`);
      await c.query(`CREATE TABLE IF NOT EXISTS ${this.dfTable} (corpus text NOT NULL, term text NOT NULL, df integer NOT NULL, PRIMARY KEY (corpus, term))`);
      await c.query(`CREATE TABLE IF NOT EXISTS ${this.generations} (corpus text PRIMARY KEY, n bigint NOT NULL)`);
      // Counted once from the passages of a schema made before the table; every write keeps it after.
      const { rows: counted } = await c.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [this.counts]);
      if (counted[0]!.t === null) {
        await c.query(`CREATE TABLE ${this.counts} (corpus text PRIMARY KEY, passages bigint NOT NULL, analyzed bigint NOT NULL DEFAULT 0)`);
        await c.query(`INSERT INTO ${this.counts} (corpus, passages) SELECT corpus, count(*) FROM ${this.table} GROUP BY corpus`);
      }
      await c.query(`CREATE TABLE IF NOT EXISTS ${this.sources} (corpus text PRIMARY KEY, fingerprint text NOT NULL)`);
      await c.query(`CREATE TABLE IF NOT EXISTS ${this.structures} (corpus text PRIMARY KEY, generation bigint NOT NULL, structure text NOT NULL)`);
      await c.query(`CREATE TABLE IF NOT EXISTS ${this.derivedTable} (corpus text NOT NULL, key text NOT NULL, generation bigint NOT NULL, value text NOT NULL,
        kept timestamptz NOT NULL DEFAULT clock_timestamp(), PRIMARY KEY (corpus, key))`);
      // What kept working sets before `derived` did (a cache: nothing in it is lost).
      await c.query(`DROP TABLE IF EXISTS ${schema}.working_sets`);
    });
  }

  private async transaction(work: (c: PoolClient) => Promise<void>): Promise<void> {
    await this.schemaReady();
    await this.inTransaction(work);
  }

  private async inTransaction(work: (c: PoolClient) => Promise<void>): Promise<void> {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      await work(c);
      await c.query('COMMIT');
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw storeError(err);
    } finally {
      c.release();
    }
  }
}

/**
 * The store's pool: what cannot reach PostgreSQL fails as PassageStoreUnavailableError (`storeError`), never with the
 * driver's message, which names the server's address or user.
 */
class StorePool {
  constructor(private readonly pool: Pool) {
    // An idle connection the server drops must not crash the process; the next query opens another.
    pool.on('error', () => undefined);
  }

  readonly query = ((...args: Parameters<Pool['query']>) => (this.pool.query as (...a: unknown[]) => Promise<unknown>)(...args).catch((err: unknown) => Promise.reject(storeError(err)))) as Pool['query'];

  async connect(): Promise<PoolClient> {
    try {
      return await this.pool.connect();
    } catch (err) {
      throw storeError(err);
    }
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

/** Each term a quoted lexeme, ORed: no query syntax from the user reaches to_tsquery. */
const tsquery = (terms: readonly string[]): string => terms.map((t) => `'${t.replace(/'/g, "''").replace(/\\/g, '\\\\')}'`).join(' | ');

/** Add `sign` for each distinct term of a passage (text and title). */
function countTerms(delta: Map<string, number>, terms: string, titleTerms: string, sign: number): void {
  const all = `${terms} ${titleTerms}`.split(' ').filter(Boolean);
  for (const t of new Set(all)) delta.set(t, (delta.get(t) ?? 0) + sign);
}
