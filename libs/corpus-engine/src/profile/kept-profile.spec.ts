import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredPassage } from '@orrery/passages';
import { SqlitePassageStore, contentHash } from '@orrery/passages';
import { CorpusRegistry } from '../index/corpus-registry';
import { keptTopicProfile, profileData, profileJson, topicProfileKey } from './kept-profile';
import { DEFAULT_TOPIC_PROFILE, TopicProfile } from './topic-profile';
import { DEFAULT_WORKING_SET } from './topic-working-set';

/** Forty subjects; each passage mixes its subject's words with common ones, deterministically. */
function passages(): StoredPassage[] {
  const common = ['report', 'season', 'region', 'local', 'figure', 'record', 'account', 'early', 'later', 'people'];
  let s = 11;
  const next = () => (s = (s * 16807) % 2147483647);
  return Array.from({ length: 600 }, (_, i) => {
    const subject = i % 40;
    const own = Array.from({ length: 5 }, (_, k) => `subj${subject}word${k}`);
    const words = Array.from({ length: 50 }, () => (next() % 3 === 0 ? own[next() % own.length]! : common[next() % common.length]!));
    const document = `subject-${subject}/${i % 3}`;
    const text = `${words.join(' ')}.`;
    return { id: `p${i}`, document, title: `Subject ${subject}`, text, contentHash: contentHash([document, text]) };
  });
}

const TOPIC = 'Subject 17';

describe('a topic profile kept in the store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orrery-kept-profile-'));
  const file = join(dir, 'passages.sqlite');
  // Two processes' connections to one store: a coordinator's and a worker's.
  const coordinatorStore = new SqlitePassageStore(file);
  const workerStore = new SqlitePassageStore(file);
  beforeAll(() => coordinatorStore.upsert('subjects', passages()));
  afterAll(async () => {
    await coordinatorStore.close();
    await workerStore.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const [shape, workingSet] of [
    ['a topic’s working set', { ...DEFAULT_WORKING_SET, wholeCorpusMax: 0 }],
    ['a whole small corpus', DEFAULT_WORKING_SET],
  ] as const) {
    it(`is built once and read by another process, on ${shape}`, async () => {
      const coordinator = await new CorpusRegistry({ builtins: false, store: coordinatorStore, workingSet }).forTopic('subjects', TOPIC);
      const built = await keptTopicProfile(coordinator.index, coordinator.origin, TOPIC, DEFAULT_TOPIC_PROFILE);
      expect(built.evidence.length).toBeGreaterThan(0);

      const worker = await new CorpusRegistry({ builtins: false, store: workerStore, workingSet }).forTopic('subjects', TOPIC);
      expect(worker.index).not.toBe(coordinator.index);
      const read = await keptTopicProfile(worker.index, worker.origin, TOPIC, DEFAULT_TOPIC_PROFILE);
      // The same profile as building it on the worker's own index would give.
      expect(read.data()).toEqual(new TopicProfile(worker.index, TOPIC, DEFAULT_TOPIC_PROFILE).data());
      expect(read.judge('p17')).toEqual(built.judge('p17'));
      // Memoized in the process after the read.
      expect(await keptTopicProfile(worker.index, worker.origin, TOPIC, DEFAULT_TOPIC_PROFILE)).toBe(read);
    });
  }

  it('reads what the store kept rather than building it again, and builds again once the corpus changes', async () => {
    const workingSet = { ...DEFAULT_WORKING_SET, wholeCorpusMax: 0 };
    const topic = 'Subject 23';
    const first = await new CorpusRegistry({ builtins: false, store: coordinatorStore, workingSet }).forTopic('subjects', topic);
    const profile = await keptTopicProfile(first.index, first.origin, topic, DEFAULT_TOPIC_PROFILE);
    expect(profileData(profileJson(profile.data()))).toEqual(profile.data());
    // Mark what the store kept: a process that reads it gets the mark, one that built its own would not.
    const key = topicProfileKey(first.origin, topic, DEFAULT_TOPIC_PROFILE);
    expect(profileData((await coordinatorStore.derived('subjects', key, first.origin.generation))!)).toEqual(profile.data());
    await coordinatorStore.keepDerived('subjects', key, first.origin.generation, profileJson({ ...profile.data(), terms: [...profile.terms, 'kept-mark'] }));
    const other = await new CorpusRegistry({ builtins: false, store: workerStore, workingSet }).forTopic('subjects', topic);
    expect((await keptTopicProfile(other.index, other.origin, topic, DEFAULT_TOPIC_PROFILE)).terms).toContain('kept-mark');

    await coordinatorStore.upsert('subjects', [{ id: 'p-new', document: 'subject-23/9', title: 'Subject 23', text: 'subj23word1 report season.', contentHash: 'new' }]);
    const after = await new CorpusRegistry({ builtins: false, store: workerStore, workingSet }).forTopic('subjects', topic);
    expect(after.origin.generation).toBeGreaterThan(first.origin.generation);
    expect((await keptTopicProfile(after.index, after.origin, topic, DEFAULT_TOPIC_PROFILE)).terms).not.toContain('kept-mark');
  });
});
