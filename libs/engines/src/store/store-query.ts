import { analyzeTerms } from '../corpus/text-analysis';
import type { StoredPassage } from './passage-store';

/**
 * Both adapters index the corpus engine's own analysed terms (stop words dropped, Porter2 stems), not
 * their built-in stemmers' output, so a store answers the same words the in-memory index does.
 */
export function indexedTerms(p: Pick<StoredPassage, 'id' | 'title' | 'text'>): { text: string; title: string } {
  return { text: analyzeTerms(p.text).join(' '), title: p.title && p.title !== p.id ? analyzeTerms(p.title).join(' ') : '' };
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
