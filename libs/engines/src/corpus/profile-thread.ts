import { parentPort } from 'node:worker_threads';
import { CorpusIndex } from './corpus-index';
import { TopicProfile } from './topic-profile';
import type { ProfileCall, ProfileReply } from './prepare-profile';

// The thread side of prepareTopicProfile: the index rebuilt from its parts and kept (the caller sends only its key
// while this is the index it sent last), the profile computed, its data sent back.
let last: { key: number; index: CorpusIndex } | null = null;
const port = parentPort!;
port.on('message', (call: ProfileCall) => {
  try {
    if ('passages' in call.parts) last = { key: call.parts.key, index: CorpusIndex.fromParts(call.parts) };
    if (!last || last.key !== call.parts.key) throw new Error('topic profile thread: no index for this call');
    const profile = new TopicProfile(last.index, call.topic, call.options);
    port.postMessage({ id: call.id, ok: true, data: profile.data() } satisfies ProfileReply);
  } catch (err) {
    port.postMessage({ id: call.id, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies ProfileReply);
  }
});
