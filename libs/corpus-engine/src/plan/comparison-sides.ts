import type { SubtopicSide } from '@orrery/protocol';
import type { CorpusIndex } from '../index/corpus-index';
import type { CorpusVocabulary } from '@orrery/passages';
import { documentStructure } from '../index/documents';
import { expandAuthorAliases, questionWords } from '../search/question-words';
import { slugify } from '@orrery/passages';
import { analyzeTerms } from '@orrery/language';

/** One side of a comparison, as the corpus knows it (the plan's `SubtopicSide`), with the subtopic that gathers its evidence. */
export interface ComparisonSide extends SubtopicSide {
  subtopicId: string;
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
