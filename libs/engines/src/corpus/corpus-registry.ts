import { BUILTIN_CORPUS } from '@orrery/protocol';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseCorporaSpec } from './corpora-config';
import type { CorpusIndex } from './corpus-index';
import { type CorpusVocabulary, GENERIC_VOCABULARY } from './corpus-vocabulary';
import { buildIndexCached, derivePassagesCached, INDEX_CACHE_DIR } from './index-cache';
import { readFolderPassages } from './ingest-folder';
import { readJsonlPassages } from './ingest-jsonl';
import { SOTU_SPLIT_VERSION, SOTU_VOCABULARY, sotuPassages } from './ingest-sotu';
import type { Passage } from './passage';
import { openPassageStore } from '../store/open-passage-store';
import type { PassageStore } from '../store/passage-store';
import { DEFAULT_READ_LIMITS, type ReadLimits } from './source-files';
import { DEFAULT_WORKING_SET, topicWorkingSet, type WorkingSetOptions } from './topic-working-set';

export { BUILTIN_CORPUS };

export type CorpusKind = 'builtin' | 'jsonl' | 'folder' | 'memory';

export interface LoadedCorpus {
  name: string;
  kind: CorpusKind;
  passages: readonly Passage[];
  index: CorpusIndex;
  /** How its documents and their authors are named in prose. */
  vocabulary: CorpusVocabulary;
  /** Milliseconds spent ingesting and indexing. */
  loadMs: number;
}

interface Entry {
  kind: CorpusKind;
  read: () => Passage[];
  vocabulary?: CorpusVocabulary;
}

/** What a corpus engine answers one topic from: the corpus's index, or a stored corpus's working index for the topic. */
export interface CorpusView {
  name: string;
  index: CorpusIndex;
  vocabulary: CorpusVocabulary;
}

export interface CorpusRegistryOptions {
  /** A `CORPORA` spec: `name=path,name2=path2`. */
  corpora?: string;
  /** Where serialized indexes are cached; null disables the disk cache. */
  cacheDir?: string | null;
  /** Register the built-in `sotu` corpus (default true). */
  builtins?: boolean;
  /** Where ingested corpora live (default: the store `CORPUS_STORE` names, opened on first use); null: none. */
  store?: PassageStore | null;
  workingSet?: WorkingSetOptions;
  /** Caps on reading a configured corpus's files (trusted paths: the operator named them, so no folder check). */
  readLimits?: ReadLimits;
}

/** Working indexes a process keeps (the most recently used). */
const WORKING_SETS = 16;

/**
 * The corpora a process knows, by name. A corpus named in `CORPORA` (or the built-in one) is ingested and
 * indexed in memory once per process; concurrent loads of the same name share one promise. Any other name is
 * looked up in the passage store (an ingested corpus): a question on it is answered from a working index of
 * the passages its topic reaches (`topicWorkingSet`), so memory follows the topic, not the corpus.
 */
export class CorpusRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly loaded = new Map<string, Promise<LoadedCorpus>>();
  private readonly cacheDir: string | null;
  private store: PassageStore | null | undefined;
  private readonly workingSetOptions: WorkingSetOptions;
  private readonly workingSets = new Map<string, Promise<CorpusView>>();
  private readonly readLimits: ReadLimits;

  constructor(options: CorpusRegistryOptions = {}) {
    this.cacheDir = options.cacheDir === undefined ? INDEX_CACHE_DIR : options.cacheDir;
    this.store = options.store;
    this.workingSetOptions = options.workingSet ?? DEFAULT_WORKING_SET;
    this.readLimits = options.readLimits ?? DEFAULT_READ_LIMITS;
    if (options.builtins !== false) this.entries.set(BUILTIN_CORPUS, {
        kind: 'builtin',
        read: () => derivePassagesCached(`sotu-${SOTU_SPLIT_VERSION}`, () => sotuPassages(), this.cacheDir),
        vocabulary: SOTU_VOCABULARY,
      });
    for (const spec of parseCorporaSpec(options.corpora)) this.register(spec.name, spec.path);
  }

  /** A registry with the built-in corpus plus `CORPORA` from the environment. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): CorpusRegistry {
    return new CorpusRegistry({ corpora: env.CORPORA });
  }

  /** Register a JSONL file or a folder of `.md`/`.txt`/`.html` files under a name (the path's type decides). */
  register(name: string, path: string): void {
    const full = resolve(path);
    let isDir: boolean;
    try {
      isDir = statSync(full).isDirectory();
    } catch {
      throw new Error(`corpus ${name}: ${full} does not exist`);
    }
    const scope = { limits: this.readLimits };
    this.set(name, isDir ? { kind: 'folder', read: () => readFolderPassages(full, scope) } : { kind: 'jsonl', read: () => readJsonlPassages(full, scope) });
  }

  /** Register passages held in memory (tests, embedders). */
  registerPassages(name: string, passages: Passage[]): void {
    const copy = passages.map((p) => ({ ...p }));
    this.set(name, { kind: 'memory', read: () => copy });
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** A configured corpus, or one with passages in the store. */
  async knows(name: string): Promise<boolean> {
    if (this.entries.has(name)) return true;
    const store = this.passageStore();
    return store ? (await store.stats(name)).passages > 0 : false;
  }

  /** Every corpus a request may name: the configured ones and those with passages in the store, sorted. */
  async researchable(): Promise<string[]> {
    const stored = (await this.passageStore()?.corpora()) ?? [];
    return [...new Set([...this.names(), ...stored])].sort();
  }

  /** What a topic's research on a corpus reads: a configured corpus's whole index, a stored one's working index for the topic. */
  async forTopic(name: string, topic: string): Promise<CorpusView> {
    if (this.entries.has(name)) return this.load(name);
    const store = this.passageStore();
    // Keyed by the corpus's generation: after a re-ingest changes it, every process builds the same new one.
    const key = `${name}\u0000${store ? await store.generation(name) : 0}\u0000${topic}`;
    const cached = this.workingSets.get(key);
    if (cached) {
      this.workingSets.delete(key);
      this.workingSets.set(key, cached);
      return cached;
    }
    const view = this.buildWorkingSet(name, topic);
    view.catch(() => this.workingSets.delete(key));
    this.workingSets.set(key, view);
    while (this.workingSets.size > WORKING_SETS) this.workingSets.delete(this.workingSets.keys().next().value!);
    return view;
  }

  /** One passage by id: from a configured corpus's index, else from the store. */
  async passage(name: string, id: string): Promise<Passage | undefined> {
    if (this.entries.has(name)) return (await this.load(name)).index.passage(id);
    const [stored] = (await this.passageStore()?.get(name, [id])) ?? [];
    return stored ? { id: stored.id, title: stored.title, text: stored.text, ...(stored.url ? { url: stored.url } : {}) } : undefined;
  }

  private async buildWorkingSet(name: string, topic: string): Promise<CorpusView> {
    const store = this.passageStore();
    if (!store || (await store.stats(name)).passages === 0) throw new Error(`unknown corpus ${JSON.stringify(name)}; known: ${this.names().join(', ') || 'none'}, or a corpus ingested into the store`);
    return { name, index: await topicWorkingSet(store, name, topic, this.workingSetOptions), vocabulary: GENERIC_VOCABULARY };
  }

  private passageStore(): PassageStore | null {
    if (this.store === undefined) this.store = openPassageStore();
    return this.store;
  }

  names(): string[] {
    return [...this.entries.keys()].sort();
  }

  load(name: string): Promise<LoadedCorpus> {
    let p = this.loaded.get(name);
    if (!p) {
      const entry = this.entries.get(name);
      if (!entry) return Promise.reject(new Error(`unknown corpus ${JSON.stringify(name)}; known: ${this.names().join(', ') || 'none'}`));
      // A corpus that cannot be read fails its load, not the process (the throw would be uncaught in setImmediate).
      p = new Promise<LoadedCorpus>((resolveLoad, rejectLoad) =>
        setImmediate(() => {
          try {
            resolveLoad(this.build(name, entry));
          } catch (err) {
            rejectLoad(err);
          }
        }),
      );
      p.catch(() => this.loaded.delete(name));
      this.loaded.set(name, p);
    }
    return p;
  }

  private set(name: string, entry: Entry): void {
    if (!/^[a-z0-9][a-z0-9_-]{0,63}$/i.test(name)) throw new Error(`corpus name ${JSON.stringify(name)} must be letters, digits, - and _`);
    this.entries.set(name, entry);
    this.loaded.delete(name);
  }

  private build(name: string, entry: Entry): LoadedCorpus {
    const t0 = performance.now();
    const passages = entry.read();
    if (passages.length === 0) throw new Error(`corpus ${name} has no passages`);
    const index = buildIndexCached(passages, entry.kind === 'memory' ? null : this.cacheDir);
    return { name, kind: entry.kind, passages, index, vocabulary: entry.vocabulary ?? GENERIC_VOCABULARY, loadMs: Math.round(performance.now() - t0) };
  }
}
