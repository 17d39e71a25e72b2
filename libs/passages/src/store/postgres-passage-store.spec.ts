import { randomBytes } from 'node:crypto';
import { Client, type Pool, type QueryConfigValues } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredPassage } from './passage-store';
import { PostgresPassageStore } from './postgres-passage-store';

const PG_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const passage = (i: number): StoredPassage => ({
  id: `p-${i}`,
  document: `doc-${i % 40}`,
  title: `Doc ${i % 40}`,
  text: `Passage ${i} on herons, egrets and bitterns.`,
  contentHash: `h-${i}`,
});

interface Plan {
  Plans?: Plan[];
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
}

/** Rows a plan read and threw away, over all its nodes. */
const discarded = (p: Plan): number => (p['Rows Removed by Filter'] ?? 0) + (p['Rows Removed by Index Recheck'] ?? 0) + (p.Plans ?? []).reduce((n, c) => n + discarded(c), 0);

describe('the PostgreSQL store, at a corpus ingested in bulk', () => {
  const schema = `t_pg_${process.pid}_${randomBytes(3).toString('hex')}`;
  const store = new PostgresPassageStore({ url: PG_URL, schema });
  const admin = new Client({ connectionString: PG_URL });
  const corpus = Array.from({ length: 3000 }, (_, i) => passage(i));

  beforeAll(async () => {
    await admin.connect();
    await store.upsert('herons', corpus);
  });
  afterAll(async () => {
    await store.close();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });

  it('looks passages up by id without reading the rest of the corpus', async () => {
    // The store's own statements, run again under EXPLAIN ANALYZE.
    const pool = (store as unknown as { pool: Pool }).pool;
    const seen: { text: string; values: QueryConfigValues<unknown[]> }[] = [];
    const query = pool.query.bind(pool) as (text: string, values?: unknown[]) => Promise<unknown>;
    (pool as unknown as { query: typeof query }).query = (text, values) => (seen.push({ text, values: values ?? [] }), query(text, values));
    const ids = corpus.filter((_, i) => i % 150 === 0).map((p) => p.id);
    try {
      expect((await store.get('herons', ids)).map((p) => p.id)).toEqual(ids);
      expect((await store.indexedTerms('herons', ids)).map((t) => t.id)).toEqual(ids);
    } finally {
      (pool as unknown as { query: typeof query }).query = query;
    }
    const lookups = seen.filter((q) => /id = ANY/.test(q.text));
    expect(lookups).toHaveLength(2);
    for (const q of lookups) {
      const { rows } = await admin.query<{ 'QUERY PLAN': [{ Plan: Plan }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${q.text}`, q.values as unknown[]);
      expect(discarded(rows[0]!['QUERY PLAN'][0].Plan)).toBe(0);
    }
  });

  it('counts a schema made before its passage counts once, then keeps them', async () => {
    await admin.query(`DROP TABLE ${schema}.passage_counts`);
    const reopened = new PostgresPassageStore({ url: PG_URL, schema });
    try {
      expect(await reopened.passageCount('herons', 10_000)).toBe(3000);
      await reopened.remove('herons', ['p-0', 'p-1']);
      await reopened.upsert('herons', [passage(1), passage(3001)]);
      expect(await reopened.passageCount('herons', 10_000)).toBe(3000);
      expect((await reopened.termStats('herons', ['heron'])).passages).toBe(3000);
    } finally {
      await reopened.close();
    }
  });
});

describe('PostgreSQL search on a query that holds common words', () => {
  const schema = `t_pg_sel_${process.pid}_${randomBytes(3).toString('hex')}`;
  // Twenty kestrel passages in two documents (the word in their title only) and sixty that repeat a word most passages share.
  const corpus: StoredPassage[] = [
    ...Array.from({ length: 20 }, (_, i) => ({ id: `kestrel-${i}`, document: `kestrel-${i % 2}`, title: 'Kestrel', text: `Nest ${i} sits high on the cliffs.`, contentHash: `k${i}` })),
    ...Array.from({ length: 60 }, (_, i) => ({ id: `field-${i}`, document: `field-${i}`, title: `Notes ${i}`, text: 'Fields, fields and more fields: field after field.', contentHash: `f${i}` })),
  ];
  const cut = new PostgresPassageStore({ url: PG_URL, schema, matchBudget: 30 });
  const whole = new PostgresPassageStore({ url: PG_URL, schema, matchBudget: 1_000 });
  const admin = new Client({ connectionString: PG_URL });

  beforeAll(async () => {
    await admin.connect();
    await cut.upsert('birds', corpus);
  });
  afterAll(async () => {
    await cut.close();
    await whole.close();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });

  it('matches on its rarer terms when they match enough passages, and ranks by all of them', async () => {
    const prefixes = (hits: { id: string }[]) => [...new Set(hits.map((h) => h.id.split('-')[0]))];
    // Read whole, the repeated common word outranks the rare one (ts_rank does not weigh terms by rarity).
    expect(prefixes(await whole.search('birds', 'kestrel field', { limit: 3 }))).toEqual(['field']);
    // Kestrel's 20 passages are enough candidates for 3 hits (4 each), and field's 60 more would pass the budget.
    expect(prefixes(await cut.search('birds', 'kestrel field', { limit: 3 }))).toEqual(['kestrel']);
    // For 10 hits, 20 candidates are too few: the next rarest term is matched too, past the budget.
    expect(await cut.search('birds', 'kestrel field', { limit: 10 })).toEqual(await whole.search('birds', 'kestrel field', { limit: 10 }));
    // Enough candidates, but two hits of them after the per-document cap: every match is ranked.
    const capped = { limit: 3, perDocument: 1 };
    expect(await cut.search('birds', 'kestrel field', capped)).toEqual(await whole.search('birds', 'kestrel field', capped));
    // Only common words: the rarest is matched even past the budget.
    expect(await cut.search('birds', 'field', { limit: 2 })).toHaveLength(2);
  });
});
