import type { Finding } from '@orrery/protocol';
import { classifyRequest, analyzeTerms } from '@orrery/language';

/** Passages a document answer cites by default: what answers, not all that matches. */
export const DOC_ANSWER_PASSAGES = 8;
/** Passages when the question asks for breadth ("list all…", "an overview of…"). */
export const BROAD_DOC_ANSWER_PASSAGES = 16;
/**
 * A passage answers when it holds at least this share of what the best passage holds of the question's words
 * (each weighted by its IDF): "Redis" alone, beside an ioredis HIMPORT example, is not "Redis over TLS with a password".
 */
export const ANSWER_SHARE = 0.5;

/**
 * The passages a document answer cites, the one that answers first: ranked by how much of the question's words
 * (rare ones weigh more) each holds, then by relevance; one per source; those holding under ANSWER_SHARE of
 * the best left out; at most DOC_ANSWER_PASSAGES (BROAD_DOC_ANSWER_PASSAGES when the question carries a breadth
 * signal).
 */
export function answeringPassages(findings: readonly Finding[], topic: string, textOf: (id: string) => string | undefined, idf: (term: string) => number = () => 1): Finding[] {
  const broad = classifyRequest(topic).signals.breadthSignals !== 'none';
  const max = broad ? BROAD_DOC_ANSWER_PASSAGES : DOC_ANSWER_PASSAGES;
  const asked = [...new Set(analyzeTerms(topic))];
  const held = (f: Finding): number => {
    const text = textOf(f.sourceId) ?? f.quote;
    const terms = new Set([...analyzeTerms(text), ...analyzeTerms(identifierWords(text))]);
    return asked.reduce((a, t) => a + (terms.has(t) ? idf(t) : 0), 0);
  };
  const scored = new Map<string, { f: Finding; held: number }>();
  for (const f of findings) {
    const prev = scored.get(f.sourceId);
    if (!prev || (f.relevance?.score ?? 0) > (prev.f.relevance?.score ?? 0)) scored.set(f.sourceId, { f, held: prev?.held ?? held(f) });
  }
  const ranked = [...scored.values()].sort((a, b) => b.held - a.held || (b.f.relevance?.score ?? 0) - (a.f.relevance?.score ?? 0));
  const best = ranked[0]?.held ?? 0;
  return ranked
    .filter((x) => x.held >= ANSWER_SHARE * best)
    .slice(0, max)
    .map((x) => x.f);
}

/**
 * The words code runs together, apart: "connectionTimeoutMillis" → "connection Timeout Millis", "max_age" →
 * "max age". A how-to question asks in words for what the answering code names in one identifier.
 */
export function identifierWords(text: string): string {
  return text.replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2').replace(/(\p{L})_(?=\p{L})/gu, '$1 ');
}
