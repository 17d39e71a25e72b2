import type { CorpusVocabulary } from '@orrery/passages';
import type { CorpusIndex } from '../index/corpus-index';
import { documentStructure } from '../index/documents';
import { expandAuthorAliases, questionWords } from '../search/question-words';

/**
 * The authors a question names as the ones who speak ("What did Lincoln say about slavery?", "FDR's talk of the
 * Depression"), not as its subject ("How have presidents talked about Lincoln?"): a run searches their documents
 * only. Empty on a corpus without authors.
 */
export function askedAuthors(index: CorpusIndex, vocabulary: CorpusVocabulary, question: string): string[] {
  const structure = documentStructure(index);
  if (!structure.authored) return [];
  return questionWords(expandAuthorAliases(question, vocabulary), structure, vocabulary, false).authors;
}
