import { BUILTIN_CORPUS } from '@orrery/protocol';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseCorporaSpec } from './corpora-config';
import type { CorpusIndex } from './corpus-index';
import type { CorpusView, CorpusViews } from './corpus-view';
import { type ConfiguredSource, fileSource, memoryKey, passagesSource, storeConfigured } from './configured-corpus';
import { type CorpusVocabulary, GENERIC_VOCABULARY, openPassageStore, SqlitePassageStore } from '@orrery/passages';
import { eachSotuPassage, SOTU_SPLIT_VERSION, SOTU_VOCABULARY, DEFAULT_READ_LIMITS, type ReadLimits } from '@orrery/passages/ingest';
import type { Passage, PassageStore } from '@orrery/passages';
import type { ViewOrigin } from '../profile/kept-profile';
import { DEFAULT_WORKING_SET, readWhole, topicWorkingSet, wholeCorpusIndex, workingSetKey, type WorkingSetOptions } from '../profile/topic-working-set';

export { BUILTIN_CORPUS };

/** A request tried to change a corpus the operator configured. */
export class ConfiguredCorpusError extends Error {}

interface Entry {
  source: ConfiguredSource;
  vocabulary?: CorpusVocabulary;
  /** Passages held in memory live in a store of the registry's own, so they never reach a store other processes read. */
  privateStore?: PassageStore;
}

export interface CorpusRegistryOptions {
  /** A `CORPORA` spec: `name=path,name2=path2`. */
  corpora?: string;
  /** Register the built-in `sotu` corpus (default true). */
  builtins?: boolean;
  /**
   * Where corpora live (default: the store `CORPUS_STORE` names, opened on first use). Null: no ingested corpora, and
   * the configured ones are kept in a store in this process's memory.
   */
  store?: PassageStore | null;
  workingSet?: WorkingSetOptions;
  /** Caps on reading a configured corpus's files (trusted paths: the operator named them, so no folder check). */
  readLimits?: ReadLimits;
  /** Bytes the cached working indexes hold together at most, as `CorpusIndex.bytes` weighs them (default `DEFAULT_CACHE_MB`). */
  cacheBytes?: number;
}

/**
 * MB a process keeps in working indexes (the most recently used ones; the newest is kept whatever its size). A topic's
 * working set of a 1M-passage corpus weighs about 13 MB, so the last four or five topics are warm; a question on
 * another builds its index again from the passages the store kept for it (about a second at 1M).
 */
export const DEFAULT_CACHE_MB = 64;

interface CachedView {
  view: Promise<CorpusView>;
  /** Its index, once built (what the cache weighs). */
  index?: CorpusIndex;
}

/**
 * The corpora a process knows, by name, every one answered from the passage store. A corpus named in `CORPORA` (or the
 * built-in one) is brought into the store on first use, once per process (fingerprinted: an unchanged source is not
 * read again); any other name is a corpus ingested into the store. A question is answered from a working index of the
 * passages its topic reaches (`topicWorkingSet`, the whole corpus when it is small), so memory follows the topic.
 */
export class CorpusRegistry implements CorpusViews {
  private readonly entries = new Map<string, Entry>();
  private readonly stored = new Map<string, Promise<void>>();
  private store: PassageStore | null | undefined;
  private configuredInMemory: PassageStore | undefined;
  private readonly workingSetOptions: WorkingSetOptions;
  /** Least recently used first. */
  private readonly workingSets = new Map<string, CachedView>();
  private readonly cacheBytes: number;
  private readonly readLimits: ReadLimits;

  constructor(options: CorpusRegistryOptions = {}) {
    this.store = options.store;
    this.workingSetOptions = options.workingSet ?? DEFAULT_WORKING_SET;
    this.readLimits = options.readLimits ?? DEFAULT_READ_LIMITS;
    this.cacheBytes = options.cacheBytes ?? DEFAULT_CACHE_MB * 2 ** 20;
    if (options.builtins !== false)
      this.entries.set(BUILTIN_CORPUS, { source: passagesSource(`builtin:sotu-${SOTU_SPLIT_VERSION}`, () => eachSotuPassage()), vocabulary: SOTU_VOCABULARY });
    for (const spec of parseCorporaSpec(options.corpora)) this.register(spec.name, spec.path);
  }

  /** A registry with the built-in corpus plus `CORPORA` from the environment. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): CorpusRegistry {
    return new CorpusRegistry({ corpora: env.CORPORA });
  }

  /** Register a JSONL file or a folder of `.md`/`.txt`/`.html` files under a name (the path's type decides). */
  register(name: string, path: string): void {
    const full = resolve(path);
    try {
      statSync(full);
    } catch {
      throw new Error(`corpus ${name}: ${full} does not exist`);
    }
    this.set(name, { source: fileSource(full, this.readLimits) });
  }

  /** Register passages held in memory (tests, embedders). */
  registerPassages(name: string, passages: Passage[]): void {
    const copy = passages.map((p) => ({ ...p }));
    this.set(name, { source: passagesSource(memoryKey(copy), () => copy), privateStore: new SqlitePassageStore(':memory:') });
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** A configured corpus, or one with passages in the store. */
  async knows(name: string): Promise<boolean> {
    if (this.entries.has(name)) return true;
    const store = this.passageStore();
    return store ? (await store.passageCount(name, 1)) > 0 : false;
  }

  /** Every corpus a request may name: the configured ones and those with passages in the store, sorted. */
  async researchable(): Promise<string[]> {
    const stored = (await this.passageStore()?.corpora()) ?? [];
    return [...new Set([...this.names(), ...stored])].sort();
  }

  /** What a topic's research on a corpus reads: its working index for the topic. */
  async forTopic(name: string, topic: string): Promise<CorpusView> {
    const store = await this.storeOf(name);
    // Keyed by the corpus's generation: after a re-ingest changes it, every process builds the same new one. A corpus
    // read whole is one index for every topic (its partition built once): looked up first, so a cached view costs no count.
    const generation = await store.generation(name);
    const wholeKey = `${name}\u0000${generation}\u0000`;
    const topicKey = `${wholeKey}${topic}`;
    const cached = this.workingSets.get(wholeKey) ?? this.workingSets.get(topicKey);
    if (cached) {
      const key = this.workingSets.has(wholeKey) ? wholeKey : topicKey;
      this.workingSets.delete(key);
      this.workingSets.set(key, cached);
      return cached.view;
    }
    const whole = await readWhole(store, name, this.workingSetOptions.wholeCorpusMax);
    const key = whole ? wholeKey : topicKey;
    // A concurrent call may have started it while the count was read.
    const started = this.workingSets.get(key);
    if (started) return started.view;
    const origin: ViewOrigin = { store, corpus: name, generation, index: whole ? 'whole' : workingSetKey(topic, this.workingSetOptions) };
    const entry: CachedView = {
      view: (async (): Promise<CorpusView> => ({ name, index: await topicWorkingSet(store, name, topic, this.workingSetOptions), vocabulary: this.entries.get(name)?.vocabulary ?? GENERIC_VOCABULARY, origin }))(),
    };
    this.workingSets.set(key, entry);
    entry.view.then(
      (view) => {
        entry.index = view.index;
        this.evict();
      },
      () => {
        if (this.workingSets.get(key) === entry) this.workingSets.delete(key);
      },
    );
    return entry.view;
  }

  /** Bytes the cached working indexes hold (`CorpusIndex.bytes`; those still being built count none yet). */
  get cachedBytes(): number {
    let total = 0;
    for (const e of this.workingSets.values()) total += e.index?.bytes ?? 0;
    return total;
  }

  /** Drops the least recently used indexes while the cache holds more than its budget, keeping the newest. */
  private evict(): void {
    // One still being built is someone's question in flight: it counts once built.
    const built = [...this.workingSets].filter(([, e]) => e.index);
    let total = this.cachedBytes;
    for (const [key, e] of built.slice(0, -1)) {
      if (total <= this.cacheBytes) break;
      this.workingSets.delete(key);
      total -= e.index!.bytes;
    }
  }

  /** The whole corpus as one index (benchmarks' baselines read it); only a corpus the working set would read whole. */
  async wholeIndex(name: string): Promise<CorpusIndex> {
    const store = await this.storeOf(name);
    const { passages } = await store.stats(name);
    const max = this.workingSetOptions.wholeCorpusMax;
    if (passages > max) throw new Error(`corpus ${name} has ${passages} passages: more than the ${max} a whole-corpus index holds`);
    return wholeCorpusIndex(store, name, max);
  }

  /**
   * Deletes an ingested corpus from the store; false when it held none. A configured corpus (built in, or in `CORPORA`)
   * is read from its files, so deleting it is the operator's edit, not a request's: refused.
   */
  async dropStored(name: string): Promise<boolean> {
    if (this.entries.has(name)) throw new ConfiguredCorpusError(`corpus ${name} is configured (built in, or in CORPORA), not ingested: remove it from CORPORA instead`);
    return (await this.passageStore()?.drop(name)) ?? false;
  }

  /** One passage by id. */
  async passage(name: string, id: string): Promise<Passage | undefined> {
    const [stored] = await (await this.storeOf(name)).get(name, [id]);
    return stored ? { id: stored.id, title: stored.title, text: stored.text, ...(stored.url ? { url: stored.url } : {}) } : undefined;
  }

  names(): string[] {
    return [...this.entries.keys()].sort();
  }

  /** The store that holds a corpus: a configured one is brought into it first (once per process; a failure is retried next time). */
  private async storeOf(name: string): Promise<PassageStore> {
    const entry = this.entries.get(name);
    if (!entry) {
      const store = this.passageStore();
      if (!store || (await store.passageCount(name, 1)) === 0) throw new Error(`unknown corpus ${JSON.stringify(name)}; known: ${this.names().join(', ') || 'none'}, or a corpus ingested into the store`);
      return store;
    }
    const store = entry.privateStore ?? this.passageStore() ?? (this.configuredInMemory ??= new SqlitePassageStore(':memory:'));
    let ready = this.stored.get(name);
    if (!ready) {
      ready = storeConfigured(store, name, entry.source, this.workingSetOptions.wholeCorpusMax).catch((err: unknown) => {
        this.stored.delete(name);
        throw new Error(`corpus ${name}: ${err instanceof Error ? err.message : String(err)}`);
      });
      this.stored.set(name, ready);
    }
    await ready;
    return store;
  }

  private passageStore(): PassageStore | null {
    if (this.store === undefined) this.store = openPassageStore();
    return this.store;
  }

  private set(name: string, entry: Entry): void {
    if (!/^[a-z0-9][a-z0-9_-]{0,63}$/i.test(name)) throw new Error(`corpus name ${JSON.stringify(name)} must be letters, digits, - and _`);
    this.entries.set(name, entry);
    this.stored.delete(name);
  }
}
