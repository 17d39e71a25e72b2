import type { IndexedTerms, PassageStore, StoredPassage, Passage } from '@orrery/passages';
import { CorpusIndex, DEFAULT_CORPUS_INDEX } from '../index/corpus-index';
import { withCorpusStructure } from './corpus-structure';
import { collapseNearDuplicates } from './near-duplicates';
import { warmProfileThread } from './prepare-profile';
import { analyzeTerms } from '@orrery/language';

export interface WorkingSetOptions {
  /** Passages a topic's working index holds at most: what a question on a stored corpus keeps in memory. */
  size: number;
  /** At most this many passages of one document (a report's worth of citations). */
  perDocument: number;
  /** Pseudo-relevance feedback: the best hits of the topic search lend their common terms to a second search. */
  feedbackPassages: number;
  feedbackTerms: number;
  /**
   * A corpus of at most this many passages is read whole: its working index is the corpus itself, so the topic profile
   * sees every passage's neighbours and the corpus-wide partition, as an index of the whole corpus always did. The same
   * bound as the partition's (`TopicProfileOptions.partition.maxCorpus`): above it neither would be built anyway.
   */
  wholeCorpusMax: number;
}

export const DEFAULT_WORKING_SET: WorkingSetOptions = { size: 3000, perDocument: 25, feedbackPassages: 20, feedbackTerms: 12, wholeCorpusMax: 20_000 };

const BATCH = 500;

/**
 * What a topic's research on a stored corpus reads. A small corpus (`wholeCorpusMax`) is read whole. Of a larger one,
 * the passages a topic's research can reach, as an in-memory index of their own:
 * the topic's full-text hits, then hits of the terms its best passages share (sections of the topic's
 * documents that do not repeat its name, and a background for the similarity graph). Near-duplicates (the
 * same text on sibling pages) count once, the best-ranked copy; no document gives more than `perDocument`.
 * Deterministic for the same store content, so the coordinator and every worker build the same one: the first to
 * choose the passages keeps their ids in the store, and the others (and later questions on the topic) read them.
 */
export async function topicWorkingSet(store: PassageStore, corpus: string, topic: string, options: WorkingSetOptions = DEFAULT_WORKING_SET): Promise<CorpusIndex> {
  if (await readWhole(store, corpus, options.wholeCorpusMax)) return wholeCorpusIndex(store, corpus, options.wholeCorpusMax);
  const key = workingSetKey(topic, options);
  const generation = await store.generation(corpus);
  const kept = await store.derived(corpus, key, generation);
  // A topic no process has chosen passages for has no profile kept either: the one this process builds next.
  if (!kept) warmProfileThread();
  const chosen = kept ? await readChosen(store, corpus, JSON.parse(kept) as string[]) : await choose(store, corpus, topic, options);
  if (!kept) await store.keepDerived(corpus, key, generation, JSON.stringify(chosen.passages.map((p) => p.id)));
  const analyzed = chosen.passages.map((p) => ({ text: chosen.terms.get(p.id)?.text ?? '', title: chosen.terms.get(p.id)?.title ?? '' }));
  const vocabulary = new Set<string>();
  for (const a of analyzed) for (const field of [a.text, a.title]) for (const t of split(field)) vocabulary.add(t);
  const stats = await store.termStats(corpus, [...vocabulary]);
  return CorpusIndex.build(chosen.passages, analyzed, { ...DEFAULT_CORPUS_INDEX, wholeCorpus: false, corpusStats: { size: stats.passages, df: stats.df } });
}

/** What a topic's working set is kept under in the store (`PassageStore.derived`). */
export const workingSetKey = (topic: string, options: WorkingSetOptions): string => `working-set:${JSON.stringify([topic, options])}`;

/** Whether a corpus is small enough to be read whole (`wholeCorpusMax`): counted only as far as that bound. */
export async function readWhole(store: PassageStore, corpus: string, wholeCorpusMax: number): Promise<boolean> {
  return (await store.passageCount(corpus, wholeCorpusMax + 1)) <= wholeCorpusMax;
}

interface Chosen {
  passages: Passage[];
  terms: Map<string, IndexedTerms>;
}

/** The working set's passages, chosen from the store's searches. */
async function choose(store: PassageStore, corpus: string, topic: string, options: WorkingSetOptions): Promise<Chosen> {
  const half = Math.ceil(options.size / 2);
  const first = await store.search(corpus, topic, { limit: half, perDocument: options.perDocument });
  const terms = await termsOf(store, corpus, first.map((h) => h.id));
  const expansion = feedbackTerms(topic, terms.slice(0, options.feedbackPassages), options.feedbackTerms);
  const ids = first.map((h) => h.id);
  if (expansion.length) {
    const seen = new Set(ids);
    const second = await store.search(corpus, `${topic} ${expansion.join(' ')}`, { limit: options.size, perDocument: options.perDocument });
    const more = second
      .filter((h) => !seen.has(h.id))
      .slice(0, Math.max(0, options.size - ids.length))
      .map((h) => h.id);
    terms.push(...(await termsOf(store, corpus, more)));
    ids.push(...more);
  }
  const termsById = new Map(terms.map((t) => [t.id, t]));
  const perDocument = new Map<string, number>();
  const capped = (await passagesOf(store, corpus, ids)).filter((p) => {
    const n = (perDocument.get(p.document) ?? 0) + 1;
    perDocument.set(p.document, n);
    return n <= options.perDocument;
  });
  const passages = collapseNearDuplicates(capped, (p) => split(termsById.get(p.id)?.text ?? '')).map(asPassage);
  return { passages, terms: termsById };
}

/** Passages chosen before, as they are stored now. */
async function readChosen(store: PassageStore, corpus: string, ids: readonly string[]): Promise<Chosen> {
  const terms = new Map((await termsOf(store, corpus, ids)).map((t) => [t.id, t]));
  return { passages: (await passagesOf(store, corpus, ids)).map(asPassage), terms };
}

const asPassage = (p: StoredPassage): Passage => ({ id: p.id, title: p.title, text: p.text, ...(p.url !== undefined ? { url: p.url } : {}) });

/**
 * The whole of a small stored corpus, in its source's order, from the terms the store analysed at ingest (nothing is
 * analysed again), with the corpus-wide structure the store keeps for it (`withCorpusStructure`).
 */
export async function wholeCorpusIndex(store: PassageStore, corpus: string, max: number): Promise<CorpusIndex> {
  const generation = await store.generation(corpus);
  const ids = await store.passageIds(corpus, max);
  const terms = await termsOf(store, corpus, ids);
  const passages = (await passagesOf(store, corpus, ids)).map(asPassage);
  // Read in batches while another process may write: build only from passages both reads returned.
  const termsById = new Map(terms.map((t) => [t.id, t]));
  const kept = passages.filter((p) => termsById.has(p.id));
  const index = await CorpusIndex.build(kept, kept.map((p) => ({ text: termsById.get(p.id)!.text, title: termsById.get(p.id)!.title })));
  // A write while it was read: the index is of no one generation, so it builds its own structure when asked (as before).
  if ((await store.generation(corpus)) === generation) await withCorpusStructure(store, corpus, generation, index);
  return index;
}

/** Terms shared by at least three of the best passages (not the topic's own), most shared first. */
function feedbackTerms(topic: string, best: readonly IndexedTerms[], limit: number): string[] {
  const count = new Map<string, number>();
  for (const t of best) for (const term of new Set(split(t.text))) count.set(term, (count.get(term) ?? 0) + 1);
  const own = new Set(analyzeTerms(topic));
  return [...count.entries()]
    .filter(([term, n]) => n >= 3 && n < best.length && !own.has(term) && /\p{L}/u.test(term))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, limit)
    .map(([term]) => term);
}

async function termsOf(store: PassageStore, corpus: string, ids: readonly string[]): Promise<IndexedTerms[]> {
  const out: IndexedTerms[] = [];
  for (let i = 0; i < ids.length; i += BATCH) out.push(...(await store.indexedTerms(corpus, ids.slice(i, i + BATCH))));
  return out;
}

async function passagesOf(store: PassageStore, corpus: string, ids: readonly string[]): Promise<StoredPassage[]> {
  const out: StoredPassage[] = [];
  for (let i = 0; i < ids.length; i += BATCH) out.push(...(await store.get(corpus, ids.slice(i, i + BATCH))));
  return out;
}

const split = (s: string): string[] => (s ? s.split(' ') : []);
