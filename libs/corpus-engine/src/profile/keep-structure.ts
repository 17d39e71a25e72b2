import { releaseProfileThread } from './prepare-profile';
import { DEFAULT_WORKING_SET, readWhole, wholeCorpusIndex } from './topic-working-set';
import type { PassageStore } from '@orrery/passages';

/**
 * What an ingest does once it has written a corpus: a corpus the working set reads whole (at most `wholeCorpusMax`
 * passages) gets its structure computed and kept for its current generation, so no process computes it on a first
 * question. A larger corpus has none (a topic's working index never builds one); its term counts, which a topic's
 * working index weighs by, are counted here instead.
 */
export async function keepCorpusStructure(store: PassageStore, corpus: string, wholeCorpusMax: number = DEFAULT_WORKING_SET.wholeCorpusMax): Promise<void> {
  try {
    await keep(store, corpus, wholeCorpusMax);
  } finally {
    // The ingest's heavy work is over: the threads that did it (the store's writes and analysis, the partition's
    // neighbours) end now instead of idling with what they hold (tens of MB each) while questions begin.
    store.release();
    releaseProfileThread();
  }
}

async function keep(store: PassageStore, corpus: string, wholeCorpusMax: number): Promise<void> {
  if ((await store.passageCount(corpus, 1)) === 0) return;
  if (!(await readWhole(store, corpus, wholeCorpusMax))) return store.keepTermCounts(corpus);
  // An ingest that changed nothing: kept already, so the corpus is not read.
  if (await store.structure(corpus, await store.generation(corpus))) return;
  // Reading the whole index computes and keeps what the store lacks for this generation.
  await wholeCorpusIndex(store, corpus, wholeCorpusMax);
}
