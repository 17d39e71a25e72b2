import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { OnDemandThread } from '@orrery/passages';
import type { PlanningOutput } from '@orrery/engine';
import type { CorpusIndex, CorpusIndexParts } from '../index/corpus-index';
import { type CorpusCoordinatorOptions, facetPlan, type FacetPlanRequest } from '../plan/corpus-plan';
import { knownClusters, partitionClusters, partitionName, seedClusters, type PartitionOptions } from './corpus-partition';
import { cachedProfile, profileTopic, rememberProfile, TopicProfile, topicProfile, type TopicProfileData, type TopicProfileOptions } from './topic-profile';

/** A topic's profile, the index's partition (what an ingest keeps in the store), or a plan from a topic's profile. */
export type ProfileWork =
  | { kind: 'profile'; topic: string; options: TopicProfileOptions }
  | { kind: 'partition'; options: PartitionOptions }
  | { kind: 'plan'; profile: TopicProfileData; request: FacetPlanRequest; options: CorpusCoordinatorOptions };

export interface ProfileCall {
  id: number;
  /** The index's parts with the partitions known for it (`knownClusters`), or only its key when the thread was sent this index last (it keeps that one). */
  parts: (CorpusIndexParts & { key: number; partitions: Record<string, readonly number[]> }) | { key: number };
  work: ProfileWork;
  /** Keep the index for later calls: a whole corpus's serves every topic; a topic's working set serves its one profile. */
  keep: boolean;
}

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
  const key = `${profileTopic(topic)}\u0000${optionsKey(options)}`;
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

/**
 * A facet plan (`facetPlan`) from a topic's profile, made in the profile thread: on a long topic facet mining and the
 * coverage check are seconds of synchronous work, which would hold the coordinator's event loop (every other key's
 * requests). In place where the thread script is absent.
 */
export async function preparePlan(index: CorpusIndex, profile: TopicProfile, request: FacetPlanRequest, options: CorpusCoordinatorOptions): Promise<PlanningOutput> {
  if (!profileThreadAvailable()) return facetPlan(index, profile, request, options);
  return (await profileThread().run(index, { kind: 'plan', profile: profile.data(), request, options })) as PlanningOutput;
}

/**
 * Ends the profile thread unless it is working: for a caller done with the index it sent (an ingest's structure job,
 * whose whole-corpus index no question uses), rather than let the thread hold it until it has been idle a while.
 */
export function releaseProfileThread(): void {
  thread?.end();
}

/**
 * Starts the profile thread ahead of a profile that will be built (a new topic's working set is being chosen), so its
 * start-up, a few hundred ms of loading code and the language model, overlaps the store's searches.
 */
export function warmProfileThread(): void {
  if (profileThreadAvailable()) profileThread().warm();
}

/** Whether a profile thread runs now (and so holds the last index it was sent). */
export const profileThreadRunning = (): boolean => thread?.running ?? false;

const building = new WeakMap<CorpusIndex, Map<string, Promise<TopicProfile>>>();
const optionIds = new WeakMap<TopicProfileOptions, number>();
let nextOptionsId = 0;
function optionsKey(o: TopicProfileOptions): number {
  let id = optionIds.get(o);
  if (id === undefined) optionIds.set(o, (id = nextOptionsId++));
  return id;
}

class ProfileThread {
  private readonly thread = new OnDemandThread(THREAD_SCRIPT, {
    name: 'topic profile',
    resourceLimits: PROFILE_THREAD_LIMITS,
    idleMs: PROFILE_THREAD_IDLE_MS,
    // A new thread holds no index: the next call sends its index whole.
    onEnd: () => (this.sentKey = null),
  });
  private readonly keys = new WeakMap<CorpusIndex, number>();
  private nextIndexKey = 0;
  /** The index the thread holds (calls are answered in order, so the last one sent). */
  private sentKey: number | null = null;

  end(): void {
    this.thread.endIdle();
  }

  warm(): void {
    this.thread.start();
  }

  get running(): boolean {
    return this.thread.running;
  }

  async run(index: CorpusIndex, work: ProfileWork): Promise<unknown> {
    let key = this.keys.get(index);
    if (key === undefined) this.keys.set(index, (key = this.nextIndexKey++));
    // A whole corpus's index is tens of MB to clone: sent once while the thread keeps it (with its partitions, which
    // the thread would otherwise build again).
    const parts = this.sentKey === key && this.thread.running ? { key } : { ...index.parts(), partitions: knownClusters(index), key };
    const keep = index.wholeCorpus;
    const reply = this.thread.call((id) => ({ id, parts, work, keep }) satisfies ProfileCall);
    this.sentKey = keep ? key : null;
    try {
      return await reply;
    } catch (err) {
      // Whatever the thread kept is in doubt.
      this.sentKey = null;
      throw err;
    }
  }
}

let thread: ProfileThread | undefined;
const profileThread = (): ProfileThread => (thread ??= new ProfileThread());
