/**
 * The coverage benchmark through the real service: a coordinator process and worker processes on a
 * Redis key prefix of their own, every topic a research run submitted over REST.
 *
 *   npm run bench:coverage -- --corpus <corpus.jsonl> --topics <topics.jsonl> [--qrels <qrels.jsonl>] --out <dir>
 *        [--concurrency N] [--workers N] [--no-coverage-check] [--max-rounds N] [--ablations] [--limit N]
 *
 * Writes each report to <dir>/<slug>.json (with --ablations, the ablation runs go to <dir>/<config>/),
 * prints per-topic and macro rows with --qrels, the BM25 top-10 / top-25 baselines on the topic string,
 * and writes <dir>/summary.json. Deletes the prefix's keys at the end.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CorpusRegistry } from '@orrery/corpus-engine';
import type { Report, Run } from '@orrery/protocol';
import { OrreryClient } from '@orrery/cli/dist/client/orrery-client';
import { readFlags } from '../support/flags';
import { type BenchStack, startBenchStack } from '../support/service-stack';
import { topicSlug, topicSlugs } from './report-names';
import { citedSourceIds, formatScoreRow, judgmentsByTopic, macroAverage, readJsonl, scoreCitations, scoreTopK, type Qrel, type TopicJudgments, type TopicScore } from './score';

interface Args {
  corpus: string;
  topics: string;
  qrels?: string;
  out: string;
  concurrency: number;
  workers: number;
  coverageCheck: boolean;
  maxRounds?: number;
  ablations: boolean;
  limit: number;
  timeoutSeconds: number;
}

const USAGE =
  'usage: bench:coverage -- --corpus <corpus.jsonl> --topics <topics.jsonl> [--qrels <qrels.jsonl>] --out <dir> [--concurrency N] [--workers N] [--no-coverage-check] [--max-rounds N] [--ablations] [--limit N]';

function parseArgs(argv: string[]): Args {
  const f = readFlags(
    argv,
    { values: ['--corpus', '--topics', '--qrels', '--out', '--concurrency', '--workers', '--max-rounds', '--limit', '--timeout'], switches: ['--no-coverage-check', '--ablations'] },
    USAGE,
  );
  const [corpus, topics, qrels, out] = ['--corpus', '--topics', '--qrels', '--out'].map((k) => f.value(k));
  if (!corpus || !topics || !out) throw new Error(USAGE);
  const maxRounds = f.int('--max-rounds');
  return {
    corpus: resolve(corpus),
    topics,
    ...(qrels ? { qrels } : {}),
    out,
    concurrency: f.int('--concurrency') ?? 4,
    workers: f.int('--workers') ?? 2,
    coverageCheck: !f.has('--no-coverage-check'),
    ...(maxRounds ? { maxRounds } : {}),
    ablations: f.has('--ablations'),
    limit: f.int('--limit') ?? Infinity,
    timeoutSeconds: f.int('--timeout') ?? 300,
  };
}

// ---------------------------------------------------------------- the service stack

/** The real service over the benchmark corpus: a coordinator and `workers` worker processes. */
function startStack(corpusPath: string, workers: number): Promise<BenchStack> {
  return startBenchStack({
    name: 'coverage',
    workers,
    env: { ENGINE: 'corpus', CORPORA: `bench=${corpusPath}`, DEFAULT_CORPUS: 'bench', ...(process.env.JUDGE ? { JUDGE: process.env.JUDGE } : {}) },
  });
}

// ---------------------------------------------------------------- runs

interface Config {
  label: string;
  dir: string;
  coverageCheck: boolean;
  maxRounds?: number;
}

interface TopicRun {
  topic: string;
  slug: string;
  status: string;
  ms: number;
  rounds: number;
  tasks: number;
  subtopics: number;
  citations: number;
  score?: TopicScore;
  error?: string;
}

async function runTopic(client: OrreryClient, cfg: Config, topic: string, timeoutMs: number): Promise<{ run: TopicRun; report?: Report; record?: Run }> {
  const slug = topicSlug(topic);
  const start = performance.now();
  try {
    const { id } = await client.submit({ topic, corpus: 'bench', coverageCheck: cfg.coverageCheck, ...(cfg.maxRounds ? { budget: { maxRounds: cfg.maxRounds } } : {}) });
    const status = await Promise.race([
      client.waitForEnd(id),
      new Promise<string>((_, rej) => setTimeout(() => rej(new Error(`no end after ${timeoutMs / 1000} s`)), timeoutMs).unref()),
    ]);
    const ms = performance.now() - start;
    const record = await client.run(id);
    const searchTasks = record.counters.tasksCompleted + record.counters.tasksFailed;
    const base = { topic, slug, status, ms, rounds: record.rounds.length, tasks: searchTasks, subtopics: record.plan?.subtopics.length ?? 0 };
    if (status !== 'done' && status !== 'needs_review') return { run: { ...base, citations: 0, error: `run ended ${status}: ${record.errors.map((e) => e.message).join('; ').slice(0, 500)}` }, record };
    const report = await client.report(id);
    return { run: { ...base, citations: citedSourceIds(report).length }, report, record };
  } catch (e) {
    return { run: { topic, slug, status: 'error', ms: performance.now() - start, rounds: 0, tasks: 0, subtopics: 0, citations: 0, error: e instanceof Error ? e.message : String(e) } };
  }
}

async function runConfig(client: OrreryClient, cfg: Config, topics: string[], args: Args, judgments: Map<string, TopicJudgments> | null): Promise<TopicRun[]> {
  mkdirSync(cfg.dir, { recursive: true });
  const runs: TopicRun[] = new Array(topics.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < topics.length) {
      const i = next++;
      const topic = topics[i]!;
      const { run, report } = await runTopic(client, cfg, topic, args.timeoutSeconds * 1000);
      if (report) for (const slug of topicSlugs(topic)) writeFileSync(join(cfg.dir, `${slug}.json`), JSON.stringify(report, null, 2));
      const j = judgments?.get(topic);
      if (j && report) run.score = scoreCitations(citedSourceIds(report), j);
      runs[i] = run;
      if (run.error) console.log(`  ${topic.slice(0, 42).padEnd(42)}  ERROR ${run.error}`);
      else if (run.score) console.log(formatScoreRow(`  ${topic.slice(0, 42)}`, run.score, extraCols(run)));
      else console.log(`  ${topic.slice(0, 42).padEnd(42)}  cited ${run.citations}${extraCols(run)}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(args.concurrency, topics.length) }, worker));
  return runs;
}

const extraCols = (r: { rounds: number; tasks: number; ms: number }): string => `  rounds ${r.rounds.toFixed(2).padStart(4)}  tasks ${r.tasks.toFixed(1).padStart(4)}  ${(r.ms / 1000).toFixed(2)} s`;
const avg = (xs: number[]): number => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const t0 = performance.now();
  const judgments = args.qrels ? judgmentsByTopic(readJsonl<Qrel>(args.qrels)) : null;
  const topics = readJsonl<{ topic: string }>(args.topics)
    .map((t) => t.topic)
    .slice(0, args.limit);
  const base = args.out;
  const configs: Config[] = args.ablations
    ? [
        { label: 'service: coverage check, 3 rounds', dir: base, coverageCheck: true, maxRounds: args.maxRounds ?? 3 },
        { label: 'ablation: no coverage check, 3 rounds', dir: join(base, 'no-coverage-check'), coverageCheck: false, maxRounds: args.maxRounds ?? 3 },
        { label: 'ablation: coverage check, 1 round', dir: join(base, 'max-rounds-1'), coverageCheck: true, maxRounds: 1 },
        { label: 'ablation: no coverage check, 1 round', dir: join(base, 'no-coverage-check-max-rounds-1'), coverageCheck: false, maxRounds: 1 },
      ]
    : [
        {
          label: `service: ${args.coverageCheck ? 'coverage check' : 'no coverage check'}${args.maxRounds ? `, max ${args.maxRounds} round(s)` : ''}`,
          dir: base,
          coverageCheck: args.coverageCheck,
          ...(args.maxRounds ? { maxRounds: args.maxRounds } : {}),
        },
      ];

  console.log(`starting a coordinator and ${args.workers} worker processes (ENGINE=corpus, corpus ${args.corpus})`);
  const stack = await startStack(args.corpus, args.workers);
  const onSignal = (): void => {
    void stack.stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const results: { label: string; dir: string; coverageCheck: boolean; maxRounds: number | null; wallSeconds: number; macro: Record<string, number> | null; errors: number; runs: TopicRun[] }[] = [];
  try {
    for (const cfg of configs) {
      console.log(`\n${cfg.label}: ${topics.length} topics, concurrency ${args.concurrency}`);
      const started = performance.now();
      const runs = await runConfig(stack.client, cfg, topics, args, judgments);
      const wallSeconds = (performance.now() - started) / 1000;
      const scored = runs.filter((r) => r.score).map((r) => r.score!);
      const ok = runs.filter((r) => !r.error);
      const macro = judgments
        ? {
            ...macroAverage(
              runs.filter((r) => judgments.has(r.topic)).map((r) => r.score ?? { topic: r.topic, precision: 0, sectionRecall: 0, passageRecall: 0, citations: 0 }),
            ),
            rounds: avg(ok.map((r) => r.rounds)),
            tasks: avg(ok.map((r) => r.tasks)),
            secondsPerTopic: avg(ok.map((r) => r.ms / 1000)),
          }
        : null;
      results.push({ label: cfg.label, dir: cfg.dir, coverageCheck: cfg.coverageCheck, maxRounds: cfg.maxRounds ?? null, wallSeconds, macro, errors: runs.length - ok.length, runs });
      console.log(`${cfg.label}: ${ok.length}/${runs.length} runs done in ${wallSeconds.toFixed(1)} s${scored.length ? '' : ''}`);
    }
  } finally {
    await stack.stop();
  }

  const baselines: { label: string; macro: Record<string, number> }[] = [];
  if (judgments) {
    const registry = new CorpusRegistry({ builtins: false, store: null });
    registry.register('bench', args.corpus);
    const index = await registry.wholeIndex('bench');
    const bm25 = (t: string, k: number): string[] => index.search(t, k).map((h) => h.id);
    for (const k of [10, 25]) baselines.push({ label: `baseline: BM25 top-${k}`, macro: { ...scoreTopK(bm25, topics, judgments, k).macro } });
  }

  console.log('\nmacro over topics');
  for (const r of results)
    if (r.macro) console.log(formatScoreRow(r.label, r.macro as unknown as TopicScore, extraCols({ rounds: r.macro.rounds!, tasks: r.macro.tasks!, ms: r.macro.secondsPerTopic! * 1000 }) + `  wall ${r.wallSeconds.toFixed(0)} s${r.errors ? `  errors ${r.errors}` : ''}`));
    else console.log(`${r.label}: ${r.runs.length - r.errors} reports, wall ${r.wallSeconds.toFixed(0)} s${r.errors ? `, errors ${r.errors}` : ''}`);
  for (const b of baselines) console.log(formatScoreRow(b.label, b.macro as unknown as TopicScore));
  console.log(`topics: ${topics.length}, total ${Math.round((performance.now() - t0) / 1000)} s, reports in ${resolve(base)}`);

  mkdirSync(base, { recursive: true });
  writeFileSync(
    join(base, 'summary.json'),
    JSON.stringify(
      {
        corpus: args.corpus,
        topics: topics.length,
        concurrency: args.concurrency,
        workers: args.workers,
        generatedAt: new Date().toISOString(),
        configs: results.map((r) => ({ label: r.label, dir: r.dir, coverageCheck: r.coverageCheck, maxRounds: r.maxRounds, wallSeconds: r.wallSeconds, errors: r.errors, macro: r.macro })),
        baselines,
        perTopic: Object.fromEntries(results.map((r) => [r.label, r.runs])),
      },
      null,
      2,
    ),
  );
  if (results.some((r) => r.errors === r.runs.length && r.runs.length > 0)) process.exitCode = 1;
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
