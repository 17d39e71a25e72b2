import type { Finding, Subtopic } from '@orrery/protocol';
import { analyzeTerms } from './text-analysis';

/** A subtopic is covered by what its run inherited when this many inherited findings bear on it (the round's own bar). */
export const INHERITED_COVER_MIN = 2;

/**
 * Which inherited findings (a follow-up's parent's) bear on each subtopic of the follow-up's plan, best first.
 *
 * Lexical, on the findings' own words (claim and quote), weighed against the inherited findings themselves: a word
 * most of them share ("Kestrel", "River" after a run on the Kestrel River) says nothing about which bear on a
 * narrower question. So a finding bears on a subtopic when it shares a word of the subtopic's query that at most half
 * of the inherited findings use; when every word of the query the findings know is such a shared word (the follow-up
 * asks about the parent's whole topic), a finding bears when it has them all. Words no finding uses do not count.
 * The same rule for every engine: it costs no model call, and the writer is still the one who cites.
 */
export function inheritedBearing(subtopics: readonly Pick<Subtopic, 'id' | 'query'>[], findings: readonly Finding[]): Record<string, string[]> {
  const termsOf = new Map(findings.map((f) => [f.id, new Set(analyzeTerms(`${f.claim} ${f.quote}`))]));
  const df = new Map<string, number>();
  for (const terms of termsOf.values()) for (const t of terms) df.set(t, (df.get(t) ?? 0) + 1);
  const n = findings.length;
  const rare = (t: string) => (df.get(t) ?? 0) <= Math.max(1, n / 2);
  const out: Record<string, string[]> = {};
  for (const s of subtopics) {
    const known = [...new Set(analyzeTerms(s.query))].filter((t) => df.has(t));
    const telling = known.filter(rare);
    const scored = findings.flatMap((f) => {
      const terms = termsOf.get(f.id)!;
      // Rarer shared words weigh more (idf over the inherited findings).
      const score = telling.length ? telling.reduce((sum, t) => sum + (terms.has(t) ? Math.log(n / df.get(t)!) + 1 : 0), 0) : known.length && known.every((t) => terms.has(t)) ? 1 : 0;
      return score > 0 ? [{ id: f.id, score }] : [];
    });
    out[s.id] = scored.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id)).map((x) => x.id);
  }
  return out;
}
