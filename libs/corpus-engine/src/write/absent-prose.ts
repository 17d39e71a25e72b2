import type { Citation, Finding, ReportSection } from '@orrery/protocol';
import { analyzeTerms } from '@orrery/language';
import { subjectWords } from '../index/subject-forms';
import { listAnd } from './report-prose';
import { groundedTitle } from './section-titles';

/** Passages an unanswered question cites at most: the nearest, not a padding of off-topic evidence. */
export const ABSENT_NEAREST = 3;

/**
 * The corpus does not answer the question: the report says so first, names the subject's words the corpus
 * never uses, and cites only the few nearest passages that share a word with the subject, as what is closest, not
 * as an answer. A passage that shares none (a salutation, another subject's army) is not near in any sense a reader
 * can see, so it is left out.
 */
export function absentReport(subject: string, missing: readonly string[], findings: readonly Finding[], sourceTitles: ReadonlyMap<string, string>): { summary: string; summaryCitations: Citation[]; sections: ReportSection[] } {
  const stems = new Set(analyzeTerms(subject));
  const nearest: Finding[] = [];
  for (const f of [...findings].filter((f) => analyzeTerms(f.quote).some((t) => stems.has(t))).sort((a, b) => (b.relevance?.score ?? 0) - (a.relevance?.score ?? 0) || a.id.localeCompare(b.id)))
    if (nearest.length < ABSENT_NEAREST && !nearest.some((n) => n.sourceId === f.sourceId)) nearest.push(f);
  const words = missing.length ? `no passage of it mentions ${listAnd(missing.map((w) => `“${w}”`))}` : `no passage of it speaks to “${subject}”`;
  const near = nearest.length
    ? ` The ${nearest.length === 1 ? 'passage' : `${nearest.length} passages`} nearest to it ${nearest.length === 1 ? 'is' : 'are'} below; ${nearest.length === 1 ? 'it does' : 'they do'} not answer it.`
    : findings.length
      ? ' No passage shares a word with the question, so none is cited.'
      : '';
  const summary = `The corpus does not answer this: ${words}.${near}`;
  const quotes = nearest.map((f) => f.quote);
  const sections: ReportSection[] = nearest.length
    ? [
        {
          // Named for the subject's words they share ("Technology" of "blockchain technology"), not a stray word of theirs.
          title: groundedTitle(quotes, [], sharedWords(subject, quotes)),
          paragraphs: nearest.map((f) => ({ text: `${sourceTitles.get(f.sourceId) ?? f.sourceId}: “${f.quote}”`, citations: [{ sourceId: f.sourceId, quote: f.quote }] })),
        },
      ]
    : [];
  return { summary, summaryCitations: [], sections };
}

/** The subject's words, as it writes them, that some of `quotes` say; null when none. */
function sharedWords(subject: string, quotes: readonly string[]): string | null {
  const said = new Set(quotes.flatMap((q) => analyzeTerms(q)));
  const words = subjectWords(subject).filter((w) => analyzeTerms(w).some((t) => said.has(t)));
  return words.length ? words.join(' ').replace(/^\p{Ll}/u, (c) => c.toUpperCase()) : null;
}
