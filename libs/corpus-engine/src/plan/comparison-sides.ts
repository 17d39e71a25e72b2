import type { CorpusIndex } from '../index/corpus-index';
import type { CorpusVocabulary } from '@orrery/passages';
import { documentStructure } from '../index/documents';
import { expandAuthorAliases, questionWords } from '../search/question-words';
import { slugify } from '@orrery/passages';
import { analyzeTerms } from '@orrery/language';

/** One side of a comparison, as the corpus knows it: some of its authors, or words its passages use. */
export interface ComparisonSide {
  /** As the question writes it ("FDR"). */
  label: string;
  /** How a report names it ("Franklin D. Roosevelt"). */
  name: string;
  /** The subtopic that gathers its evidence. */
  subtopicId: string;
  /** The corpus's authors it names (a dated, authored corpus), or null for a side of words. */
  authors: string[] | null;
  /** Its index terms (a side of words). */
  terms: string[];
}

export const SIDE_PREFIX = 'side-';

/** The sides of a comparison on this corpus, or null when fewer than two can be told apart in it. */
export function comparisonSides(index: CorpusIndex, vocabulary: CorpusVocabulary, sides: readonly string[]): ComparisonSide[] | null {
  const structure = documentStructure(index);
  const out: ComparisonSide[] = [];
  for (const label of sides) {
    const subtopicId = `${SIDE_PREFIX}${slugify(label, 40) || out.length + 1}`;
    if (structure.authored) {
      const authors = questionWords(expandAuthorAliases(label, vocabulary), structure, vocabulary, false).authors;
      if (authors.length) {
        out.push({ label, name: authors.join(' and '), subtopicId, authors, terms: [] });
        continue;
      }
    }
    const terms = [...new Set(analyzeTerms(label))].filter((t) => index.df(t) > 0);
    if (terms.length) out.push({ label, name: label, subtopicId, authors: null, terms });
  }
  const ids = new Set(out.map((s) => s.subtopicId));
  return out.length >= 2 && ids.size === out.length ? out : null;
}

/** Which side a passage belongs to (its author, or the side's words in its text or title), or null. */
export function sideOfPassage(sides: readonly ComparisonSide[], author: string | null, terms: ReadonlySet<string>): ComparisonSide | null {
  const bySide = sides.filter((s) => (s.authors ? author !== null && s.authors.includes(author) : s.terms.every((t) => terms.has(t))));
  return bySide.length === 1 ? bySide[0]! : null;
}
