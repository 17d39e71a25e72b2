import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CorpusIndex, CorpusIndexParts } from './corpus-index';
import { knownClusters, partitionClusters, partitionName, seedClusters, type PartitionOptions } from './corpus-partition';
import { cachedProfile, rememberProfile, TopicProfile, topicProfile, type TopicProfileData, type TopicProfileOptions } from './topic-profile';

/** A topic's profile, or the index's partition (what an ingest keeps in the store). */
export type ProfileWork = { kind: 'profile'; topic: string; options: TopicProfileOptions } | { kind: 'partition'; options: PartitionOptions };

export interface ProfileCall {
  id: number;
  /** The index's parts with the partitions known for it (`knownClusters`), or only its key when the thread was sent this index last (it keeps that one). */
  parts: (CorpusIndexParts & { key: number; partitions: Record<string, readonly number[]> }) | { key: number };
  work: ProfileWork;
}

/** A profile's data, or a partition's clusters in corpus order. */
export type ProfileReply = { id: number; ok: true; value: TopicProfileData | readonly number[] } | { id: number; ok: false; error: string };

const THREAD_SCRIPT = join(__dirname, 'profile-thread.js');

/**
 * The thread's heap: one index (a whole small corpus of up to 20,000 passages with its passages' vectors is a few
 * hundred MB), the language model and one profile's work; without a bound V8 lets its garbage grow far past that.
 */
export const PROFILE_THREAD_LIMITS = { maxOldGenerationSizeMb: 512 } as const;

/** A thread with no build for this long ends, and frees the index it kept: profiles are memoized here, so repeats need none. */
export const PROFILE_THREAD_IDLE_MS = 30_000;

/** Whether profiles can be built in a thread here (its compiled script is present: every built process). */
export function profileThreadAvailable(): boolean {
  return existsSync(THREAD_SCRIPT);
}

/**
 * A topic's profile, built in a worker thread: building one reads thousands of passages' neighbours (and, on a whole
 * small corpus, partitions it), seconds of synchronous work that would hold the process's event loop (lock renewals,
 * HTTP, SIGTERM). Memoized as `topicProfile` is, so an engine that awaits this first then reads `topicProfile` for free.
 * Where the thread script is absent (tests run from the TypeScript sources) it is built in place.
 */
export async function prepareTopicProfile(index: CorpusIndex, topic: string, options: TopicProfileOptions): Promise<TopicProfile> {
  const known = cachedProfile(index, topic, options);
  if (known) return known;
  if (!profileThreadAvailable()) return topicProfile(index, topic, options);
  let inFlight = building.get(index);
  if (!inFlight) building.set(index, (inFlight = new Map()));
  const key = `${topic.trim().toLowerCase()}\u0000${optionsKey(options)}`;
  let pending = inFlight.get(key);
  if (!pending) {
    pending = profileThread()
      .run(index, { kind: 'profile', topic, options })
      .then((data) => rememberProfile(index, topic, options, TopicProfile.fromData(index, topic, options, data as TopicProfileData)))
      .finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
  }
  return pending;
}

/**
 * The index's partition (`partitionClusters`), built in the profile thread as a profile's is (seconds of neighbour
 * queries on a whole corpus) and then known here too, or in place where the thread script is absent.
 */
export async function preparePartition(index: CorpusIndex, options: PartitionOptions): Promise<readonly number[]> {
  const name = partitionName(options);
  if (!profileThreadAvailable() || knownClusters(index)[name]) return partitionClusters(index, options);
  const clusters = (await profileThread().run(index, { kind: 'partition', options })) as readonly number[];
  seedClusters(index, name, clusters);
  return partitionClusters(index, options);
}

const building = new WeakMap<CorpusIndex, Map<string, Promise<TopicProfile>>>();
const optionIds = new WeakMap<TopicProfileOptions, number>();
let nextOptionsId = 0;
function optionsKey(o: TopicProfileOptions): number {
  let id = optionIds.get(o);
  if (id === undefined) optionIds.set(o, (id = nextOptionsId++));
  return id;
}

class ProfileThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, { resolve: (v: TopicProfileData | readonly number[]) => void; reject: (e: Error) => void }>();
  private nextId = 0;
  private readonly keys = new WeakMap<CorpusIndex, number>();
  private nextIndexKey = 0;
  /** The index the thread holds (calls are answered in order, so the last one sent). */
  private sentKey: number | null = null;
  private readonly idle = setTimeout(() => this.endIdle(), PROFILE_THREAD_IDLE_MS).unref();

  /** Ends an idle thread; the next build starts another, which is sent its index whole. */
  private endIdle(): void {
    const worker = this.worker;
    if (!worker || this.pending.size > 0) return;
    this.worker = null;
    this.sentKey = null;
    worker.removeAllListeners();
    void worker.terminate();
  }

  run(index: CorpusIndex, work: ProfileWork): Promise<TopicProfileData | readonly number[]> {
    let key = this.keys.get(index);
    if (key === undefined) this.keys.set(index, (key = this.nextIndexKey++));
    const worker = this.started();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      // A whole corpus's index is tens of MB to clone: sent once while the thread keeps it (with its partitions, which
      // the thread would otherwise build again).
      const parts = this.sentKey === key ? { key } : { ...index.parts(), partitions: knownClusters(index), key };
      this.sentKey = key;
      worker.postMessage({ id, parts, work } satisfies ProfileCall);
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(THREAD_SCRIPT, { resourceLimits: PROFILE_THREAD_LIMITS });
    // An idle thread never keeps a finished process alive; a pending build does (ref above).
    worker.unref();
    worker.on('message', (reply: ProfileReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) {
        worker.unref();
        this.idle.refresh();
      }
      if (reply.ok) p.resolve(reply.value);
      else {
        // Whatever the thread kept is in doubt: the next call sends its index whole.
        this.sentKey = null;
        p.reject(new Error(reply.error));
      }
    });
    const fail = (err: Error): void => {
      // The next build starts a new thread, which holds no index yet.
      if (this.worker === worker) {
        this.worker = null;
        this.sentKey = null;
      }
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`topic profile thread exited (${code})`)));
    return (this.worker = worker);
  }
}

let thread: ProfileThread | undefined;
const profileThread = (): ProfileThread => (thread ??= new ProfileThread());
