import { parentPort } from 'node:worker_threads';
import { CorpusIndex } from './corpus-index';
import { TopicProfile } from './topic-profile';
import type { ProfileCall, ProfileReply } from './prepare-profile';

// The thread side of prepareTopicProfile: the index rebuilt from its parts (the last one kept, as calls for one
// corpus come in a row), the profile computed, its data sent back.
let last: { parts: ProfileCall['parts']; index: CorpusIndex } | null = null;
const port = parentPort!;
port.on('message', (call: ProfileCall) => {
  try {
    if (last?.parts.key !== call.parts.key) last = { parts: call.parts, index: CorpusIndex.fromParts(call.parts) };
    const profile = new TopicProfile(last.index, call.topic, call.options);
    port.postMessage({ id: call.id, ok: true, data: profile.data() } satisfies ProfileReply);
  } catch (err) {
    port.postMessage({ id: call.id, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies ProfileReply);
  }
});
