/** How a corpus's documents and their authors are named in prose: in answers, ledes and questions. */
export interface CorpusVocabulary {
  /** One document: "State of the Union address". */
  document: string;
  documents: string;
  /** Who writes or delivers a document: "president". */
  author: string;
  authors: string;
  /** Other names a question may give a document ("annual message"); they are the corpus, not the subject. */
  documentAliases: readonly string[];
  /** Short names of authors a question may use ("FDR"), to their names in the titles. */
  authorAliases: Readonly<Record<string, string>>;
}

export const GENERIC_VOCABULARY: CorpusVocabulary = {
  document: 'document',
  documents: 'documents',
  author: 'author',
  authors: 'authors',
  documentAliases: [],
  authorAliases: {},
};
