import type { PassageStore } from '@orrery/passages';
import type { CorpusIndex } from '../index/corpus-index';
import { prepareTopicProfile } from './prepare-profile';
import { shortHash } from '@orrery/passages';
import { cachedProfile, profileTopic, rememberProfile, TopicProfile, type TopicProfileData, type TopicProfileOptions } from './topic-profile';

/** Where what is derived from a view's index is kept: its corpus in the store, at the generation the index was read from. */
export interface ViewOrigin {
  store: PassageStore;
  corpus: string;
  generation: number;
  /** Which index of the corpus: the whole corpus, or a topic's working set (`workingSetKey`). */
  index: string;
}

/**
 * A topic's profile on a view's index: memoized in this process, else read from the store where the first process to
 * build it kept it, else built (off the event loop, `prepareTopicProfile`) and kept. The coordinator builds it while
 * it plans, so a worker reads a few KB instead of holding a thread, the index's copy and the build's garbage.
 */
export async function keptTopicProfile(index: CorpusIndex, origin: ViewOrigin, topic: string, options: TopicProfileOptions): Promise<TopicProfile> {
  const known = cachedProfile(index, topic, options);
  if (known) return known;
  const key = topicProfileKey(origin, topic, options);
  const kept = await origin.store.derived(origin.corpus, key, origin.generation);
  if (kept) return cachedProfile(index, topic, options) ?? rememberProfile(index, topic, options, TopicProfile.fromData(index, topic, options, profileData(kept)));
  const profile = await prepareTopicProfile(index, topic, options);
  await origin.store.keepDerived(origin.corpus, key, origin.generation, profileJson(profile.data()));
  return profile;
}

/** What a topic's profile on a view's index is kept under (`PassageStore.derived`). */
export function topicProfileKey(origin: ViewOrigin, topic: string, options: TopicProfileOptions): string {
  return `profile:${shortHash(JSON.stringify([origin.index, profileTopic(topic), options]), 40)}`;
}

/** A profile's data as the store keeps it: JSON, its maps as entry lists (numbers round-trip exactly). */
export function profileJson(data: TopicProfileData): string {
  return JSON.stringify({ ...data, centroid: [...data.centroid], members: [...data.members] });
}

export function profileData(json: string): TopicProfileData {
  const raw = JSON.parse(json) as Omit<TopicProfileData, 'centroid' | 'members'> & { centroid: [string, number][]; members: [string, number][] };
  return { ...raw, centroid: new Map(raw.centroid), members: new Map(raw.members) };
}
