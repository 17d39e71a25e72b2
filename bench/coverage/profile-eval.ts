/**
 * Diagnostic: how good is the topic profile's on-topic set (the precision guard) on a FreshWiki-style
 * benchmark? Per topic: size, precision, recall and section reach of the evidence, and conductance.
 *
 *   node bench/dist/coverage/profile-eval.js --corpus <corpus.jsonl> --topics <topics.jsonl> --qrels <qrels.jsonl> [--per-topic]
 */
import { CorpusRegistry, TopicProfile } from '@orrery/corpus-engine';
import { judgmentsByTopic, readJsonl, type Qrel } from './score';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const arg = (k: string): string => argv[argv.indexOf(k) + 1]!;
  const perTopic = argv.includes('--per-topic');
  const registry = new CorpusRegistry({ builtins: false, store: null });
  registry.register('bench', arg('--corpus'));
  const index = await registry.wholeIndex('bench');
  const judgments = judgmentsByTopic(readJsonl<Qrel>(arg('--qrels')));
  const topics = readJsonl<{ topic: string }>(arg('--topics')).map((t) => t.topic).filter((t) => judgments.has(t));
  let sp = 0, sr = 0, ss = 0, sn = 0, sc = 0;
  for (const topic of topics) {
    const j = judgments.get(topic)!;
    const p = new TopicProfile(index, topic);
    const ids = p.evidence.map((e) => e.id);
    const hits = ids.filter((id) => j.relevant.has(id));
    const secs = new Set(hits.map((id) => j.relevant.get(id)!));
    const prec = ids.length ? hits.length / ids.length : 0;
    const rec = hits.length / j.relevant.size;
    const reach = secs.size / j.sections.size;
    sp += prec; sr += rec; ss += reach; sn += ids.length; sc += p.communityCut?.conductance ?? 1;
    if (perTopic)
      console.log(`${topic.slice(0, 45).padEnd(46)} n ${String(ids.length).padStart(3)} rel ${String(j.relevant.size).padStart(3)} prec ${prec.toFixed(2)} rec ${rec.toFixed(2)} reach ${reach.toFixed(2)} phi ${(p.communityCut?.conductance ?? 1).toFixed(2)}`);
  }
  const n = topics.length;
  console.log(`on-topic set: precision ${(sp / n).toFixed(3)} recall ${(sr / n).toFixed(3)} section reach ${(ss / n).toFixed(3)} size ${(sn / n).toFixed(1)} conductance ${(sc / n).toFixed(3)}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
