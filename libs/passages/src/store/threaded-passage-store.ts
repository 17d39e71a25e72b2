import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ResourceLimits } from 'node:worker_threads';
import { OnDemandThread } from '../threads/on-demand-thread';
import { analysePassages, HASH_PAGE, type HashPage, hashPagesFrom, queryTerms } from './store-query';
import type { CorpusStats, CorpusStructure, IndexedTerms, PassageStore, StoreCapabilities, StoredHash, StoredPassage, StoreHit, StoreSearchOptions, TermStats } from './passage-store';

type Method = Exclude<keyof PassageStore, 'capabilities' | 'close' | 'release' | 'search' | 'hashPages'> | 'searchTerms' | 'hashPage' | 'upsertAnalysed';

export interface StoreCall {
  id: number;
  method: Method;
  args: unknown[];
}

const THREAD_SCRIPT = join(__dirname, 'sqlite-store-thread.js');

/**
 * The thread's heap: what it holds live is the language model, the stem cache (bounded) and one call's rows (a chunk,
 * a page of hashes); without a bound V8 lets an ingest's garbage grow its heap to hundreds of MB before collecting it.
 */
export const STORE_THREAD_LIMITS = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16 } as const;

/**
 * A store thread with no call for this long ends (the next call starts another, a new connection in tens of ms): an
 * ingest's thread holds its language model, stem cache and garbage, 100 MB and more, that questions never use.
 */
export const STORE_THREAD_IDLE_MS = 10_000;

/** Whether the SQLite store can run in a thread here (its compiled thread script is present). */
export function sqliteThreadAvailable(): boolean {
  return existsSync(THREAD_SCRIPT);
}

/**
 * The SQLite store in a worker thread of its own. better-sqlite3 answers synchronously, and a full-text
 * search or a write grows with the corpus: in a thread, the process's event loop keeps turning (lock renewals,
 * SIGTERM, HTTP) while the store works. Queries are analysed on the caller's side, and so are passages to write
 * while the thread is busy (a few per turn of the caller's loop). Results cross by structured clone.
 */
export class ThreadedPassageStore implements PassageStore {
  readonly capabilities: StoreCapabilities = { shared: 'machine' };
  private readonly thread: OnDemandThread;

  constructor(
    readonly file: string,
    idleMs = STORE_THREAD_IDLE_MS,
  ) {
    this.thread = new OnDemandThread(THREAD_SCRIPT, { name: 'passage store', workerData: { file }, resourceLimits: STORE_THREAD_LIMITS, idleMs });
  }

  /**
   * Analysis is most of a write's work. An idle store thread analyses what it writes; while it is busy, the next write's
   * passages are analysed here meanwhile and sent ready to write, so concurrent writers (an ingest's chunks) use two cores.
   */
  async upsert(corpus: string, passages: readonly StoredPassage[]): Promise<void> {
    if (passages.length === 0) return;
    if (!this.thread.busy) return void (await this.call('upsert', [corpus, passages]));
    await this.call('upsertAnalysed', [corpus, await analysePassages(passages)]);
  }

  /** Read a page at a time: the thread never holds (nor clones) a large corpus's ids at once. */
  hashPages(corpus: string): AsyncGenerator<readonly StoredHash[]> {
    return hashPagesFrom((after) => this.call('hashPage', [corpus, after, HASH_PAGE]) as Promise<HashPage>);
  }

  remove(corpus: string, ids: readonly string[]): Promise<void> {
    return this.call('remove', [corpus, ids]) as Promise<void>;
  }

  sourceFingerprint(corpus: string): Promise<string | null> {
    return this.call('sourceFingerprint', [corpus]) as Promise<string | null>;
  }

  setSourceFingerprint(corpus: string, fingerprint: string | null): Promise<void> {
    return this.call('setSourceFingerprint', [corpus, fingerprint]) as Promise<void>;
  }

  drop(corpus: string): Promise<boolean> {
    return this.call('drop', [corpus]) as Promise<boolean>;
  }

  /** The query is analysed here (where the engine has the language model loaded), so the thread never loads it to read. */
  async search(corpus: string, query: string, options: StoreSearchOptions): Promise<StoreHit[]> {
    return (await this.call('searchTerms', [corpus, await queryTerms(query), options])) as StoreHit[];
  }

  get(corpus: string, ids: readonly string[]): Promise<StoredPassage[]> {
    return this.call('get', [corpus, ids]) as Promise<StoredPassage[]>;
  }

  passageIds(corpus: string, limit: number): Promise<string[]> {
    return this.call('passageIds', [corpus, limit]) as Promise<string[]>;
  }

  indexedTerms(corpus: string, ids: readonly string[]): Promise<IndexedTerms[]> {
    return this.call('indexedTerms', [corpus, ids]) as Promise<IndexedTerms[]>;
  }

  termStats(corpus: string, terms: readonly string[]): Promise<TermStats> {
    return this.call('termStats', [corpus, terms]) as Promise<TermStats>;
  }

  keepTermCounts(corpus: string): Promise<void> {
    return this.call('keepTermCounts', [corpus]) as Promise<void>;
  }

  stats(corpus: string): Promise<CorpusStats> {
    return this.call('stats', [corpus]) as Promise<CorpusStats>;
  }

  passageCount(corpus: string, atMost: number): Promise<number> {
    return this.call('passageCount', [corpus, atMost]) as Promise<number>;
  }

  corpora(): Promise<string[]> {
    return this.call('corpora', []) as Promise<string[]>;
  }

  generation(corpus: string): Promise<number> {
    return this.call('generation', [corpus]) as Promise<number>;
  }

  structure(corpus: string, generation: number): Promise<CorpusStructure | null> {
    return this.call('structure', [corpus, generation]) as Promise<CorpusStructure | null>;
  }

  keepStructure(corpus: string, generation: number, structure: CorpusStructure): Promise<boolean> {
    return this.call('keepStructure', [corpus, generation, structure]) as Promise<boolean>;
  }

  derived(corpus: string, key: string, generation: number): Promise<string | null> {
    return this.call('derived', [corpus, key, generation]) as Promise<string | null>;
  }

  keepDerived(corpus: string, key: string, generation: number, value: string): Promise<void> {
    return this.call('keepDerived', [corpus, key, generation, value]) as Promise<void>;
  }

  /** The running thread's heap bounds (null while none runs). */
  get threadLimits(): ResourceLimits | null {
    return this.thread.resourceLimits;
  }

  /** Ends the store's thread unless a call is in hand: an ingest's thread holds its analysis caches and garbage. */
  release(): void {
    this.thread.endIdle();
  }

  close(): Promise<void> {
    return this.thread.close();
  }

  private call(method: Method, args: unknown[]): Promise<unknown> {
    return this.thread.call((id) => ({ id, method, args }) satisfies StoreCall);
  }
}
