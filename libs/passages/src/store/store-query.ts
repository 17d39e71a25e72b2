// Loaded on first use: a store thread that only reads never loads the language model (about 70 MB).
let analysis: Promise<typeof import('@orrery/language')> | undefined;
const textAnalysis = () => (analysis ??= import('@orrery/language'));
import type { StoredHash, StoredPassage, StoreHit } from './passage-store';

/**
 * Both adapters index the corpus engine's own analysed terms (stop words dropped, Porter2 stems), not
 * their built-in stemmers' output, so a store answers the same words the in-memory index does.
 */
export async function indexedTerms(p: Pick<StoredPassage, 'id' | 'title' | 'text'>): Promise<{ text: string; title: string }> {
  const { analyzeTerms } = await textAnalysis();
  return { text: analyzeTerms(p.text).join(' '), title: p.title && p.title !== p.id ? analyzeTerms(p.title).join(' ') : '' };
}

/** Derived values a store keeps per corpus, the most recently kept: each topic's working set (a few thousand ids) and profile. */
export const KEPT_DERIVED = 128;

/** Passages' hashes read at once: a page, not a whole large corpus, is held (and, from the store's thread, cloned) at a time. */
export const HASH_PAGE = 20_000;

/** One page of a corpus's hashes read by row order (`SqlitePassageStore.hashPage`): the entries and the last row read. */
export interface HashPage {
  entries: StoredHash[];
  last: number;
}

/** Every page of a corpus's hashes, read with `page(after)` (in this thread or the store's) until one is empty. */
export async function* hashPagesFrom(page: (after: number) => Promise<HashPage>): AsyncGenerator<readonly StoredHash[]> {
  for (let p = await page(0); p.entries.length; p = await page(p.last)) yield p.entries;
}

/** Let timers and I/O run (lock renewals, signal handlers) between synchronous steps of store work. */
export const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface AnalysedPassage {
  passage: StoredPassage;
  terms: { text: string; title: string };
}

/** What a store holds of a passage, to tell whether a write changes it. */
export interface KnownPassage {
  content_hash: string;
  document: string;
}

/** Whether writing `passage` changes what the store holds (`known`: its row now, if any). */
export const changedFrom = (known: KnownPassage | undefined, passage: StoredPassage): boolean =>
  !known || known.content_hash !== passage.contentHash || known.document !== passage.document;

/**
 * Passages with their index terms. Analysis is the slow part of a write (about 0.3 ms a passage), so it runs before
 * the write transaction, letting the event loop turn every few passages, and parallel writers analyse at once and
 * only queue to write.
 */
export async function analysePassages(passages: readonly StoredPassage[]): Promise<AnalysedPassage[]> {
  const out: AnalysedPassage[] = [];
  for (const passage of passages) {
    out.push({ passage, terms: await indexedTerms(passage) });
    if (out.length % 20 === 0) await turn();
  }
  return out;
}

/** The passages whose content hash or document differs from what the store holds (`before`), analysed. */
export const analyseChanged = (passages: readonly StoredPassage[], before: ReadonlyMap<string, KnownPassage>): Promise<AnalysedPassage[]> =>
  analysePassages(passages.filter((p) => changedFrom(before.get(p.id), p)));

/** A free-text query as distinct analysed terms, in query order (the adapters OR them). */
export async function queryTerms(query: string): Promise<string[]> {
  const { analyzeTerms } = await textAnalysis();
  return [...new Set(analyzeTerms(query))];
}

/** Per-document cap and limit as SQL integers: no cap is the limit itself. */
export function capOf(options: { limit: number; perDocument?: number }): { limit: number; perDocument: number } {
  const limit = Math.max(0, Math.floor(options.limit));
  const perDocument = options.perDocument === undefined ? limit : Math.max(0, Math.floor(options.perDocument));
  return { limit, perDocument };
}

/**
 * The best `limit` hits with at most `perDocument` of one document, by score then id, as the adapters' SQL ranks them
 * (`ORDER BY score DESC, id`, ids compared as SQL compares text: by code point).
 */
export function cappedBest(hits: readonly { id: string; document: string; score: number }[], perDocument: number, limit: number): StoreHit[] {
  const sorted = [...hits].sort((a, b) => b.score - a.score || byCodePoint(a.id, b.id));
  const perDoc = new Map<string, number>();
  const out: StoreHit[] = [];
  for (const h of sorted) {
    if (out.length === limit) break;
    const n = (perDoc.get(h.document) ?? 0) + 1;
    perDoc.set(h.document, n);
    if (n <= perDocument) out.push({ id: h.id, score: h.score });
  }
  return out;
}

/** UTF-8 byte order (SQLite's BINARY collation), which JavaScript's UTF-16 order differs from past U+FFFF. */
function byCodePoint(a: string, b: string): number {
  if (a === b) return 0;
  // Within the BMP below the surrogates the two orders agree.
  if (!/[\ud800-\uffff]/.test(a + b)) return a < b ? -1 : 1;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** Order rows as the ids were asked, leaving unknown ids out. */
export function inAskedOrder<T extends { id: string }>(ids: readonly string[], rows: readonly T[]): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out: T[] = [];
  for (const id of ids) {
    const r = byId.get(id);
    if (r) out.push(r);
  }
  return out;
}

/** A passage row as both adapters select it. */
export interface PassageRow {
  id: string;
  document: string;
  title: string;
  url: string | null;
  text: string;
  content_hash: string;
}

export function toPassage(r: PassageRow): StoredPassage {
  return { id: r.id, title: r.title, ...(r.url !== null ? { url: r.url } : {}), text: r.text, document: r.document, contentHash: r.content_hash };
}
