import type { Passage } from './passage';

/** A passage as a store keeps it: the passage, the document it was split from, and the hash that makes ingest incremental. */
export interface StoredPassage extends Passage {
  /** The document the passage came from (a file, a page): per-document caps and near-duplicate checks group by it. */
  document: string;
  /** Hash of title, url and text: a re-ingest rewrites only passages whose hash changed. */
  contentHash: string;
}

export interface StoreHit {
  id: string;
  score: number;
}

export interface StoreSearchOptions {
  limit: number;
  /** At most this many hits from one document (default: no cap). */
  perDocument?: number;
}

/** The index terms a store keeps for a passage (the corpus engine's analysed terms, space-joined). */
export interface IndexedTerms {
  id: string;
  text: string;
  title: string;
}

/** How common some terms are in a whole corpus: its passage count and, per term, the passages that contain it. */
export interface TermStats {
  passages: number;
  df: Map<string, number>;
}

export interface CorpusStats {
  passages: number;
  documents: number;
}

/**
 * What is derived from a whole corpus and kept beside it, valid for one generation of it: computing it takes seconds,
 * so an ingest does it once rather than every process on its first question.
 */
export interface CorpusStructure {
  /** Louvain partitions of the corpus, by their options' name (`corpusPartition`): the cluster of every passage id. */
  partitions: Record<string, Record<string, number>>;
}

/** What an adapter can do, so callers ask the port rather than branch on the adapter. */
export interface StoreCapabilities {
  /** Processes on several machines can share it (no shared disk needed). */
  shared: 'machine' | 'network';
}

/** A stored passage's id and content hash. */
export type StoredHash = readonly [id: string, contentHash: string];

/**
 * Passages of named corpora, on disk, shared by every process that opens the same location. Writes are
 * idempotent by passage id, so a redone ingest chunk changes nothing.
 */
export interface PassageStore {
  readonly capabilities: StoreCapabilities;
  /** Insert or replace passages by id. */
  upsert(corpus: string, passages: readonly StoredPassage[]): Promise<void>;
  /** Every passage id of a corpus with its content hash (for incremental ingest), a page at a time: a large corpus's are never held at once. */
  hashPages(corpus: string): AsyncIterable<readonly StoredHash[]>;
  remove(corpus: string, ids: readonly string[]): Promise<void>;
  /** Delete the whole corpus (its passages, index and term counts); false when it held none. Its generation moves on, so what readers derived from it is stale. */
  drop(corpus: string): Promise<boolean>;
  /** Full-text (BM25-ranked) search, best first. */
  search(corpus: string, query: string, options: StoreSearchOptions): Promise<StoreHit[]>;
  /** The passages with these ids, in the order asked; unknown ids are left out. */
  get(corpus: string, ids: readonly string[]): Promise<StoredPassage[]>;
  /** The corpus's passage ids in the order they were first written (a source's order), at most `limit`: what a whole-corpus index of a small corpus reads. */
  passageIds(corpus: string, limit: number): Promise<string[]>;
  /** The index terms of these passages, in the order asked; unknown ids are left out (an engine builds a working index from them without analysing the text again). */
  indexedTerms(corpus: string, ids: readonly string[]): Promise<IndexedTerms[]>;
  /** Document frequencies of index terms over the whole corpus (terms it lacks are left out), so a working index of part of it weighs terms as the corpus does. */
  termStats(corpus: string, terms: readonly string[]): Promise<TermStats>;
  /** Counts what `termStats` reads for the corpus's current generation now, where a store counts on first read (SQLite), so a question never pays for it; kept on every write elsewhere (PostgreSQL). */
  keepTermCounts(corpus: string): Promise<void>;
  stats(corpus: string): Promise<CorpusStats>;
  /** The corpus's passage count, counted no further than `atMost` (whether it has any, whether it is small: a large corpus is not counted through). */
  passageCount(corpus: string, atMost: number): Promise<number>;
  /** The names of the corpora that hold at least one passage, sorted. */
  corpora(): Promise<string[]>;
  /**
   * The fingerprint (`sourceFingerprint`) of the source the corpus was last fully ingested from, or null: an ingest
   * that finds the source's fingerprint unchanged reads nothing. Cleared before an ingest writes, set once it is complete.
   */
  sourceFingerprint(corpus: string): Promise<string | null>;
  setSourceFingerprint(corpus: string, fingerprint: string | null): Promise<void>;
  /** A number that changes whenever a write changes the corpus's passages (0: never written), so readers know when what they derived is stale. */
  generation(corpus: string): Promise<number>;
  /** The structure kept for this generation of the corpus; null when none was, or only for another generation (it is stale). */
  structure(corpus: string, generation: number): Promise<CorpusStructure | null>;
  /** Keeps the structure derived from this generation of the corpus, replacing any kept before; false (nothing kept) when the corpus is no longer at it. */
  keepStructure(corpus: string, generation: number, structure: CorpusStructure): Promise<boolean>;
  /**
   * A value derived from the corpus at `generation` that a process kept under `key` (`keepDerived`), else null (none
   * was, or the corpus has changed since): a topic's working set or profile computed once serves every process.
   */
  derived(corpus: string, key: string, generation: number): Promise<string | null>;
  /** Keep a value derived from `generation` under `key`; ignored when the corpus has changed since (and older ones are let go). */
  keepDerived(corpus: string, key: string, generation: number, value: string): Promise<void>;
  /**
   * Work that needed more than reads is over (an ingest has written its corpus): what the store holds for it (a thread
   * with its heap and caches) is freed now rather than once idle. The next call that needs it starts it again.
   */
  release(): void;
  close(): Promise<void>;
}
