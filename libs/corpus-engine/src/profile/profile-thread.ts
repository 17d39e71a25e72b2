import { parentPort } from 'node:worker_threads';
import { CorpusIndex } from '../index/corpus-index';
import { facetPlan } from '../plan/corpus-plan';
import { partitionClusters, seedClusters } from './corpus-partition';
import { analyzeTerms } from '@orrery/language';
import { TopicProfile } from './topic-profile';
import type { ThreadReply } from '@orrery/passages';
import type { ProfileCall } from './prepare-profile';

// The thread side of prepareTopicProfile, preparePartition and preparePlan: the index rebuilt from its parts (with the partitions
// known for it), the work done, its result sent back. A whole corpus's index is kept for the next call (the caller
// then sends only its key); a topic's working set is let go once its profile is built.
let last: { key: number; index: CorpusIndex } | null = null;
const port = parentPort!;
// Every profile analyses its topic's words: the language model is loaded now, before the first call comes.
analyzeTerms('');
port.on('message', (call: ProfileCall) => {
  try {
    if ('passages' in call.parts) {
      const index = CorpusIndex.fromParts(call.parts);
      for (const [name, clusters] of Object.entries(call.parts.partitions)) seedClusters(index, name, clusters);
      last = { key: call.parts.key, index };
    }
    if (!last || last.key !== call.parts.key) throw new Error('topic profile thread: no index for this call');
    const { work } = call;
    const value =
      work.kind === 'partition'
        ? partitionClusters(last.index, work.options)
        : work.kind === 'plan'
          ? facetPlan(last.index, TopicProfile.fromData(last.index, work.request.topic, work.options.profile, work.profile), work.request, work.options)
          : new TopicProfile(last.index, work.topic, work.options).data();
    if (!call.keep) last = null;
    port.postMessage({ id: call.id, ok: true, value } satisfies ThreadReply);
  } catch (err) {
    port.postMessage({ id: call.id, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies ThreadReply);
  }
});
