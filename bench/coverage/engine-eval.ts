/**
 * In-process benchmark of the corpus engine on a FreshWiki-style benchmark.
 *
 *   node bench/dist/coverage/engine-eval.js --corpus <corpus.jsonl> --topics <topics.jsonl> --qrels <qrels.jsonl>
 *        [--no-coverage-check] [--max-rounds N] [--ablations] [--limit N] [--per-topic] [--json <out.json>] [--store <file.sqlite>]
 *
 * The corpus is answered from a passage store, as every corpus is: a SQLite store in this process's memory, or with
 * --store the SQLite file at that path (written once; an unchanged corpus file is not read again).
 * Prints one row per topic (with --per-topic), the macro row of the configured run, the BM25 top-10
 * and top-25 baseline rows, and with --ablations the grid coverage check on/off x 3 rounds / 1 round.
 */
import { writeFileSync } from 'node:fs';
import { CorpusCoordinatorEngine, CorpusRegistry, CorpusSubagentEngine } from '@orrery/corpus-engine';
import { SqlitePassageStore, type PassageStore } from '@orrery/passages';
import { readFlags } from '../support/flags';
import { DEFAULT_LOOP, runResearchLoop } from './research-loop';
import { citedSourceIds, formatScoreRow, judgmentsByTopic, macroAverage, readJsonl, scoreCitations, scoreTopK, type Qrel, type TopicScore } from './score';

interface Args {
  corpus: string;
  topics: string;
  qrels: string;
  coverageCheck: boolean;
  maxRounds: number;
  ablations: boolean;
  limit: number;
  perTopic: boolean;
  json?: string;
  store?: string;
}

const USAGE = 'usage: engine-eval --corpus <corpus.jsonl> --topics <topics.jsonl> --qrels <qrels.jsonl> [--no-coverage-check] [--max-rounds N] [--ablations] [--limit N] [--per-topic] [--json <out.json>] [--store <file.sqlite>]';

function parseArgs(argv: string[]): Args {
  const f = readFlags(argv, { values: ['--corpus', '--topics', '--qrels', '--max-rounds', '--limit', '--json', '--store'], switches: ['--no-coverage-check', '--ablations', '--per-topic'] }, USAGE);
  const [corpus, topics, qrels, json, store] = ['--corpus', '--topics', '--qrels', '--json', '--store'].map((k) => f.value(k));
  if (!corpus || !topics || !qrels) throw new Error(USAGE);
  return {
    corpus,
    topics,
    qrels,
    coverageCheck: !f.has('--no-coverage-check'),
    maxRounds: f.int('--max-rounds') ?? DEFAULT_LOOP.maxRounds,
    ablations: f.has('--ablations'),
    limit: f.int('--limit') ?? Infinity,
    perTopic: f.has('--per-topic'),
    ...(json ? { json } : {}),
    ...(store ? { store } : {}),
  };
}

interface RunRow extends TopicScore {
  rounds: number;
  tasks: number;
  engineCalls: number;
  ms: number;
  subtopics: number;
  stop: string;
  /** Cited and found (ledger) source ids, for --json analysis. */
  cited: string[];
  found: string[];
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const t0 = performance.now();
  // The corpus goes into a store as a configured corpus does: the file --store names, else one in this process's memory.
  const store: PassageStore | null = args.store ? new SqlitePassageStore(args.store) : null;
  const registry = new CorpusRegistry({ builtins: false, store });
  registry.register('bench', args.corpus);
  const loaded = performance.now();
  const corpus = { index: await registry.wholeIndex('bench') };
  console.log(`corpus: ${corpus.index.size} passages, stored and indexed in ${Math.round(performance.now() - loaded)} ms${args.store ? ` (store ${args.store})` : ''}`);
  const judgments = judgmentsByTopic(readJsonl<Qrel>(args.qrels));
  const topics = readJsonl<{ topic: string }>(args.topics)
    .map((t) => t.topic)
    .filter((t) => judgments.has(t))
    .slice(0, args.limit);
  const coord = new CorpusCoordinatorEngine(registry, 'bench');
  const sub = new CorpusSubagentEngine(registry, 'bench');

  const configs = args.ablations
    ? [
        { label: 'engine: coverage check, 3 rounds', coverageCheck: true, maxRounds: 3 },
        { label: 'ablation: no coverage check, 3 rounds', coverageCheck: false, maxRounds: 3 },
        { label: 'ablation: coverage check, 1 round', coverageCheck: true, maxRounds: 1 },
        { label: 'ablation: no coverage check, 1 round', coverageCheck: false, maxRounds: 1 },
      ]
    : [{ label: `engine: ${args.coverageCheck ? 'coverage check' : 'no coverage check'}, ${args.maxRounds} round(s)`, coverageCheck: args.coverageCheck, maxRounds: args.maxRounds }];

  const summary: { label: string; macro: ReturnType<typeof macroAverage> & Record<string, number> }[] = [];
  const perTopic: Record<string, RunRow[]> = {};
  for (const cfg of configs) {
    const rows: RunRow[] = [];
    for (const topic of topics) {
      const start = performance.now();
      const r = await runResearchLoop(coord, sub, { ...DEFAULT_LOOP, topic, corpus: 'bench', coverageCheck: cfg.coverageCheck, maxRounds: cfg.maxRounds });
      const score = scoreCitations(citedSourceIds(r.report), judgments.get(topic)!);
      const row: RunRow = { ...score, rounds: r.rounds, tasks: r.tasks, engineCalls: r.engineCalls, ms: performance.now() - start, subtopics: r.plan.subtopics.length, stop: r.stopReason, cited: citedSourceIds(r.report), found: r.ledger.sourceIds };
      rows.push(row);
      if (args.perTopic)
        console.log(
          formatScoreRow(`  ${topic.slice(0, 42)}`, row, `  rounds ${row.rounds} subtopics ${row.subtopics} calls ${row.engineCalls} ${Math.round(row.ms)} ms (${row.stop})`),
        );
    }
    const macro = macroAverage(rows);
    const extra = {
      rounds: avg(rows.map((r) => r.rounds)),
      engineCalls: avg(rows.map((r) => r.engineCalls)),
      msPerTopic: avg(rows.map((r) => r.ms)),
    };
    summary.push({ label: cfg.label, macro: { ...macro, ...extra } });
    perTopic[cfg.label] = rows;
    console.log(formatScoreRow(cfg.label, macro, `  rounds ${extra.rounds.toFixed(2)}  calls/topic ${extra.engineCalls.toFixed(1)}  ${Math.round(extra.msPerTopic)} ms/topic`));
  }
  const bm25 = (t: string, k: number): string[] => corpus.index.search(t, k).map((h) => h.id);
  for (const k of [10, 25]) {
    const b = scoreTopK(bm25, topics, judgments, k);
    summary.push({ label: `baseline: BM25 top-${k}`, macro: { ...b.macro } });
    console.log(formatScoreRow(`baseline: BM25 top-${k}`, b.macro));
  }
  console.log(`topics: ${topics.length}, total ${Math.round((performance.now() - t0) / 1000)} s`);
  if (args.json) writeFileSync(args.json, JSON.stringify({ summary, perTopic }, null, 2));
  await store?.close();
}

const avg = (xs: number[]): number => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
