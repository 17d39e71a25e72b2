import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { CorpusCoordinatorEngine, CorpusRegistry, CorpusSubagentEngine } from '@orrery/corpus-engine';
import { judgmentsByTopic, readJsonl, type Qrel } from '../coverage/score';
import { REPLAY_ROUND_CAP, replayTopic, type ReplayTopic } from './judge-replay';

export interface ReplayCache {
  corpus: string;
  topics: string;
  cap: number;
  replayMs: number;
  runs: ReplayTopic[];
}

/**
 * The replay of every topic, read from `cachePath` when it holds one for the same corpus, topics and cap
 * (training and evaluation re-read it instead of re-running the research), else run and written there.
 */
export async function loadOrReplay(a: { corpus: string; topics: string; qrels: string; cachePath: string; limit?: number }, log: (s: string) => void): Promise<ReplayCache> {
  if (existsSync(a.cachePath)) {
    const c = JSON.parse(readFileSync(a.cachePath, 'utf8')) as ReplayCache;
    if (c.corpus === a.corpus && c.topics === a.topics && c.cap === REPLAY_ROUND_CAP && (a.limit === undefined || c.runs.length >= a.limit)) {
      log(`replay: read ${c.runs.length} topics from ${a.cachePath} (the replay took ${(c.replayMs / 1000).toFixed(1)} s when it ran)`);
      return a.limit === undefined ? c : { ...c, runs: c.runs.slice(0, a.limit) };
    }
  }
  const t0 = performance.now();
  const registry = new CorpusRegistry({ builtins: false, store: null });
  registry.register('bench', a.corpus);
  const judgments = judgmentsByTopic(readJsonl<Qrel>(a.qrels));
  const topics = readJsonl<{ topic: string }>(a.topics)
    .map((t) => t.topic)
    .filter((t) => judgments.has(t))
    .slice(0, a.limit ?? Infinity);
  const coord = new CorpusCoordinatorEngine(registry, 'bench');
  const sub = new CorpusSubagentEngine(registry, 'bench');
  const runs: ReplayTopic[] = [];
  for (const topic of topics) runs.push(await replayTopic(coord, sub, topic, judgments.get(topic)!));
  const cache: ReplayCache = { corpus: a.corpus, topics: a.topics, cap: REPLAY_ROUND_CAP, replayMs: Math.round(performance.now() - t0), runs };
  writeFileSync(a.cachePath, JSON.stringify(cache));
  log(`replay: ${runs.length} topics to ${REPLAY_ROUND_CAP} rounds in ${(cache.replayMs / 1000).toFixed(1)} s, cached in ${a.cachePath}`);
  return cache;
}
