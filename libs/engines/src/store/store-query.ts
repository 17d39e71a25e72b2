import { analyzeTerms } from '../corpus/text-analysis';
import type { StoredPassage } from './passage-store';

/**
 * Both adapters index the corpus engine's own analysed terms (stop words dropped, Porter2 stems), not
 * their built-in stemmers' output, so a store answers the same words the in-memory index does.
 */
export function indexedTerms(p: Pick<StoredPassage, 'id' | 'title' | 'text'>): { text: string; title: string } {
  return { text: analyzeTerms(p.text).join(' '), title: p.title && p.title !== p.id ? analyzeTerms(p.title).join(' ') : '' };
}

/** Let timers and I/O run (lock renewals, signal handlers) between synchronous steps of store work. */
export const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface AnalysedPassage {
  passage: StoredPassage;
  terms: { text: string; title: string };
}

/**
 * The passages whose content hash or document differs from what the store holds, with their index terms.
 * Analysis is the slow part of a write (about 0.3 ms a passage), so it runs before the write transaction,
 * letting the event loop turn every few passages, and parallel writers analyse at once and only queue to write.
 */
export async function analyseChanged(passages: readonly StoredPassage[], before: ReadonlyMap<string, { content_hash: string; document: string }>): Promise<AnalysedPassage[]> {
  const out: AnalysedPassage[] = [];
  for (const passage of passages) {
    const old = before.get(passage.id);
    if (old && old.content_hash === passage.contentHash && old.document === passage.document) continue;
    out.push({ passage, terms: indexedTerms(passage) });
    if (out.length % 20 === 0) await turn();
  }
  return out;
}

/** A free-text query as distinct analysed terms, in query order (the adapters OR them). */
export function queryTerms(query: string): string[] {
  return [...new Set(analyzeTerms(query))];
}

/** Per-document cap and limit as SQL integers: no cap is the limit itself. */
export function capOf(options: { limit: number; perDocument?: number }): { limit: number; perDocument: number } {
  const limit = Math.max(0, Math.floor(options.limit));
  const perDocument = options.perDocument === undefined ? limit : Math.max(0, Math.floor(options.perDocument));
  return { limit, perDocument };
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
