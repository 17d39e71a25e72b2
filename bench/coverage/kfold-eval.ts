/**
 * Coverage on topics the engine was not tuned on: k-fold over the development topics.
 *
 *   node bench/dist/coverage/kfold-eval.js --corpus <corpus.jsonl> --topics <topics.jsonl> --qrels <qrels.jsonl> [--folds 4] [--json <out.json>]
 *
 * Every configuration of a small grid (the defaults and one-at-a-time changes of the parameters that were
 * tuned by hand: community size, fringe, partition share, conductance cap, seeds, refinement stop) runs the
 * in-process research loop on every topic. Then, per fold, the configuration that scores best on the other
 * folds' topics (tuned on three quarters) is scored on the fold's own topics (the fourth); the k-fold row is
 * the macro average of those scores over all topics. The all-topics row is the configuration chosen on all
 * topics, scored on them: the gap between the two rows is what tuning on the topics buys. Folds are fixed
 * by a hash of each topic, so every run splits the same way.
 */
import { writeFileSync } from 'node:fs';
import { CorpusCoordinatorEngine, CorpusRegistry, CorpusSubagentEngine, DEFAULT_COORDINATOR_OPTIONS, DEFAULT_TOPIC_PROFILE, type CorpusCoordinatorOptions, type TopicProfileOptions } from '@orrery/corpus-engine';
import { shortHash } from '@orrery/passages';
import { readFlags } from '../support/flags';
import { DEFAULT_LOOP, runResearchLoop } from './research-loop';
import { citedSourceIds, formatScoreRow, judgmentsByTopic, macroAverage, readJsonl, scoreCitations, type MacroScore, type Qrel, type TopicScore } from './score';

export interface GridConfig {
  name: string;
  coordinator: CorpusCoordinatorOptions;
}

const profile = (p: Partial<TopicProfileOptions>): CorpusCoordinatorOptions => ({ ...DEFAULT_COORDINATOR_OPTIONS, profile: { ...DEFAULT_TOPIC_PROFILE, ...p } });
const d = DEFAULT_TOPIC_PROFILE;

/** The defaults and one-at-a-time changes (about ±20-30%) of the hand-tuned parameters. */
export const GRID: GridConfig[] = [
  { name: 'defaults', coordinator: DEFAULT_COORDINATOR_OPTIONS },
  { name: 'community.maxSize 30', coordinator: profile({ community: { ...d.community, maxSize: 30 } }) },
  { name: 'community.maxSize 50', coordinator: profile({ community: { ...d.community, maxSize: 50 } }) },
  { name: 'community.sizePenalty 0.1', coordinator: profile({ community: { ...d.community, sizePenalty: 0.1 } }) },
  { name: 'community.sizePenalty 0.3', coordinator: profile({ community: { ...d.community, sizePenalty: 0.3 } }) },
  { name: 'fringe.ratio 1.2', coordinator: profile({ fringe: { ...d.fringe, ratio: 1.2 } }) },
  { name: 'fringe.ratio 2', coordinator: profile({ fringe: { ...d.fringe, ratio: 2 } }) },
  { name: 'partition.minShare 0.4', coordinator: profile({ partition: { ...d.partition, minShare: 0.4 } }) },
  { name: 'partition.minShare 0.6', coordinator: profile({ partition: { ...d.partition, minShare: 0.6 } }) },
  { name: 'maxConductance 0.4', coordinator: profile({ maxConductance: 0.4 }) },
  { name: 'maxConductance 0.6', coordinator: profile({ maxConductance: 0.6 }) },
  { name: 'seeds 8', coordinator: profile({ seeds: 8 }) },
  { name: 'seeds 12', coordinator: profile({ seeds: 12 }) },
  { name: 'refinement stop 5%', coordinator: { ...DEFAULT_COORDINATOR_OPTIONS, refinement: { ...DEFAULT_COORDINATOR_OPTIONS.refinement, minUncoveredShare: 0.05 } } },
];

/** The targets: section_recall >= 0.90 and precision >= 0.92. A configuration is as good as its worse margin. */
export const TARGET = { precision: 0.92, sectionRecall: 0.9 };
export const objective = (m: Pick<MacroScore, 'precision' | 'sectionRecall'>): number => Math.min(m.precision - TARGET.precision, m.sectionRecall - TARGET.sectionRecall);

/** Topic -> fold, by a hash of the topic: the same split on every run and machine. */
export function foldsOf(topics: readonly string[], k: number): Map<string, number> {
  const order = [...topics].sort((a, b) => shortHash(a, 12).localeCompare(shortHash(b, 12)) || a.localeCompare(b));
  return new Map(order.map((t, i) => [t, i % k]));
}

/** The configuration that scores best on `topics` (ties: the earlier in the grid, the defaults first). */
export function choose(rows: ReadonlyMap<string, ReadonlyMap<string, TopicScore>>, topics: readonly string[]): string {
  let best = '';
  let bestScore = -Infinity;
  for (const [name, perTopic] of rows) {
    const score = objective(macroAverage(topics.map((t) => perTopic.get(t)!)));
    if (score > bestScore + 1e-12) {
      bestScore = score;
      best = name;
    }
  }
  return best;
}

/** k-fold: each fold scored with the configuration chosen on the other folds. */
export function kfold(rows: ReadonlyMap<string, ReadonlyMap<string, TopicScore>>, folds: ReadonlyMap<string, number>, k: number): { macro: MacroScore; chosen: string[] } {
  const scores: TopicScore[] = [];
  const chosen: string[] = [];
  for (let f = 0; f < k; f++) {
    const train = [...folds].filter(([, x]) => x !== f).map(([t]) => t);
    const test = [...folds].filter(([, x]) => x === f).map(([t]) => t);
    const pick = choose(rows, train);
    chosen.push(pick);
    for (const t of test) scores.push(rows.get(pick)!.get(t)!);
  }
  return { macro: macroAverage(scores), chosen };
}

interface Args {
  corpus: string;
  topics: string;
  qrels: string;
  folds: number;
  json?: string;
}

const USAGE = 'usage: kfold-eval --corpus <corpus.jsonl> --topics <topics.jsonl> --qrels <qrels.jsonl> [--folds 4] [--json <out.json>]';

function parseArgs(argv: string[]): Args {
  const f = readFlags(argv, { values: ['--corpus', '--topics', '--qrels', '--folds', '--json'] }, USAGE);
  const [corpus, topics, qrels, json] = ['--corpus', '--topics', '--qrels', '--json'].map((k) => f.value(k));
  const folds = f.int('--folds') ?? 4;
  if (!corpus || !topics || !qrels || folds < 2) throw new Error(USAGE);
  return { corpus, topics, qrels, folds, ...(json ? { json } : {}) };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const t0 = performance.now();
  const registry = new CorpusRegistry({ builtins: false, store: null });
  registry.register('bench', args.corpus);
  const judgments = judgmentsByTopic(readJsonl<Qrel>(args.qrels));
  const topics = readJsonl<{ topic: string }>(args.topics)
    .map((t) => t.topic)
    .filter((t) => judgments.has(t));
  const rows = new Map<string, Map<string, TopicScore>>();
  for (const cfg of GRID) {
    const coord = new CorpusCoordinatorEngine(registry, 'bench', cfg.coordinator);
    const sub = new CorpusSubagentEngine(registry, 'bench', cfg.coordinator.profile);
    const perTopic = new Map<string, TopicScore>();
    for (const topic of topics) {
      const r = await runResearchLoop(coord, sub, { ...DEFAULT_LOOP, topic, corpus: 'bench' });
      perTopic.set(topic, scoreCitations(citedSourceIds(r.report), judgments.get(topic)!));
    }
    rows.set(cfg.name, perTopic);
    console.log(formatScoreRow(`  ${cfg.name}`, macroAverage([...perTopic.values()])));
  }
  const folds = foldsOf(topics, args.folds);
  const k = kfold(rows, folds, args.folds);
  const allPick = choose(rows, topics);
  const all = macroAverage(topics.map((t) => rows.get(allPick)!.get(t)!));
  console.log(formatScoreRow(`${args.folds}-fold (tuned on ${args.folds - 1}/${args.folds}, scored on the rest)`, k.macro, `  chosen per fold: ${k.chosen.join(' | ')}`));
  console.log(formatScoreRow('all topics (tuned and scored on all)', all, `  chosen: ${allPick}`));
  console.log(`gap (all topics - k-fold): precision ${(all.precision - k.macro.precision).toFixed(3)}, section_recall ${(all.sectionRecall - k.macro.sectionRecall).toFixed(3)}; ${topics.length} topics, ${GRID.length} configurations, ${Math.round((performance.now() - t0) / 1000)} s`);
  if (args.json) writeFileSync(args.json, JSON.stringify({ kfold: k, all: { chosen: allPick, macro: all }, rows: Object.fromEntries([...rows].map(([n, m]) => [n, Object.fromEntries(m)])) }, null, 2));
}

if (require.main === module)
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
