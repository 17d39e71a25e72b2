import type { CorpusVocabulary } from '@orrery/passages';
import type { ViewOrigin } from '../profile/kept-profile';
import type { CorpusIndex } from './corpus-index';

/** What a corpus engine answers one topic from: a stored corpus's working index for the topic. */
export interface CorpusView {
  name: string;
  index: CorpusIndex;
  vocabulary: CorpusVocabulary;
  /** Where what is derived from the index (a topic's profile) is kept for every process. */
  origin: ViewOrigin;
}

/**
 * Where a search reads a corpus from. The registry implements it; the spoke knows only this, so a search task's
 * modules never include the code that brings corpora into the store.
 */
export interface CorpusViews {
  forTopic(name: string, topic: string): Promise<CorpusView>;
}
