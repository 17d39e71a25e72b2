import { analyzeTerms } from '@orrery/language';
import type { CorpusIndex } from './corpus-index';
import { perSubject } from './per-subject';

/**
 * A subject word whose form the question writes ("trusts", "housing") is said in fewer than this share of the
 * passages holding its stem: the stem's other forms carry another sense ("I trust", the House), so a passage or a
 * sentence speaks of the subject only where it says the word as the question does. Same-sense forms stay above it
 * ("terrorism" is 0.27 of the passages with "terror", the rest say "terrorists"; "railroads" 0.53, "taxes" 0.43).
 */
export const FORM_SHARE = 0.2;
/** A stem held by fewer passages than this says too little of its senses to judge. */
const MIN_STEM_PASSAGES = 20;
/** Passages read per stem at most. */
const MAX_READ = 2_000;

export interface SubjectForms {
  /** The subject's words that must be said as the question writes them. */
  forms: string[];
  /** Whether a text says each of them (always, when there are none). */
  says: (text: string) => boolean;
}

const cached = perSubject<SubjectForms>(64);

/** The subject's words whose stem another sense owns in this corpus, and the test that a text says them as asked. */
export function subjectForms(index: CorpusIndex, subject: string): SubjectForms {
  const words = subjectWords(subject.toLowerCase());
  return cached(index, words, () => {
    const forms = words.filter((w) => ownSense(index, w));
    const patterns = forms.map(wordPattern);
    return { forms, says: (text) => patterns.every((p) => p.test(text)) };
  });
}

function ownSense(index: CorpusIndex, word: string): boolean {
  const stems = analyzeTerms(word);
  if (stems.length !== 1 || index.df(stems[0]!) < MIN_STEM_PASSAGES) return false;
  const form = wordPattern(word);
  const held = index.searchTerms(stems, { limit: Math.min(index.df(stems[0]!), MAX_READ) });
  return held.filter((h) => form.test(index.passage(h.id)!.text)).length < FORM_SHARE * held.length;
}

/** The words of a subject as it writes them, each once ("the trusts" → the, trusts). */
export const subjectWords = (subject: string): string[] => [...new Set(subject.split(/[^\p{L}\p{N}'’-]+/u))].filter(Boolean);

/** The word itself, whole, in any case. */
const wordPattern = (word: string): RegExp => new RegExp(`(?<![\\p{L}\\p{N}])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}])`, 'iu');
