import type { CorpusIndex } from '../index/corpus-index';
import { analyzeTerms } from '@orrery/language';

/**
 * Below this confidence the corpus is taken not to answer a question: the report says so and cites only
 * the nearest passages. Set on the tuning half of bench/reports' questions (docs/benchmarks.md): there the
 * absent subjects score 0–0.60 and the answerable ones 0.71 and up; this is between the two.
 */
export const ANSWER_CONFIDENCE_THRESHOLD = 0.65;

/** Passages whose match is weighed. */
const CANDIDATES = 30;

/**
 * How well retrieval finds the subject: the largest share of the subject's IDF mass that one passage among the
 * best BM25 hits holds. A word the corpus never uses weighs as much as the rarest word it has, so a subject
 * of unknown words ("cryptocurrency and bitcoin") scores 0 and a subject half-known scores about a half.
 * 1 for a subject with no content words (nothing to judge).
 */
export function answerConfidence(index: CorpusIndex, subject: string): number {
  const terms = [...new Set(analyzeTerms(subject))];
  if (terms.length === 0 || index.size === 0) return 1;
  const unseen = Math.log(1 + index.size / 0.5);
  const weight = new Map(terms.map((t) => [t, index.df(t) > 0 ? index.idf(t) : unseen]));
  const total = [...weight.values()].reduce((a, b) => a + b, 0);
  let best = 0;
  for (const h of index.searchTerms(terms, { limit: CANDIDATES })) {
    const held = h.matched.reduce((a, t) => a + (weight.get(t) ?? 0), 0);
    best = Math.max(best, held / total);
  }
  return Math.round(best * 1000) / 1000;
}
