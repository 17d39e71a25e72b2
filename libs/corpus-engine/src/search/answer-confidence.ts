import type { CorpusIndex } from '../index/corpus-index';
import { subjectWords } from '../index/subject-forms';
import { analyzeTerms, questionForm } from '@orrery/language';

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

/** How well the corpus answers a question: `answerConfidence` on its subject, and the subject's words it never uses. */
export interface Retrieval {
  confidence: number;
  missing: string[];
}

/**
 * The retrieval reading of a topic, or undefined when it is no question: only a question can ask about what the
 * corpus lacks; a bare topic ("Armorial of Albania") names what the user came to the corpus for, and its words may
 * be in no passage even where its subject is.
 */
export function retrievalOf(index: CorpusIndex, topic: string, subject: string): Retrieval | undefined {
  const asks = /\?\s*$/.test(topic) || questionForm(topic).opener !== null;
  return asks ? { confidence: answerConfidence(index, subject), missing: unknownWords(index, subject) } : undefined;
}

/** Whether the corpus does not answer the question: the plan searches only its overview, and the report says so. */
export const unanswered = (retrieval: Retrieval | undefined): retrieval is Retrieval => retrieval !== undefined && retrieval.confidence < ANSWER_CONFIDENCE_THRESHOLD;

/** The words of a subject the corpus never uses ("bitcoin"). */
function unknownWords(index: CorpusIndex, subject: string): string[] {
  return subjectWords(subject).filter((w) => {
    const terms = analyzeTerms(w);
    return terms.length > 0 && terms.every((t) => index.df(t) === 0);
  });
}
