/**
 * How often the round judge is right, against an oracle, on FreshWiki-style runs.
 *
 *   node bench/dist/judge/judge-quality-bench.js --corpus <corpus.jsonl> --topics <topics.jsonl> --qrels <qrels.jsonl>
 *        [--cache /tmp/orrery-judge-replay.json] [--labels <labelled.jsonl>] [--limit N]
 *
 * Replays every topic with the in-process research loop, every round continued to REPLAY_ROUND_CAP, and scores
 * the report after each round (cached in --cache, so later runs and training re-read it). The oracle labels
 * each decision point: `continue` when the next round raised section_recall by >= ORACLE_MIN_GAIN, else `stop`.
 * Prints, on the held-back half of the topics (the committed L1 was trained on the other), per level and for the
 * whole chain L0 → L1 (no API key, so no L2): accuracy, precision and recall of `stop`, rounds against the
 * oracle's and always-continue's, and section_recall lost against always-continue; then the chain on 2-fold
 * (trained on each half, scored on the other) and on all topics (trained and scored on all).
 * --labels writes the labelled decision records (the L0 decision log of every point) for `npm run train:judge`.
 */
import { decideWithLevels, type JudgeSignal, type JudgeVerdict, l0Judge, L1_ACT_AT, L1_FEATURES, L1_MODEL, l1Features, l1Judge, type L1Model } from '@orrery/decisions';
import { verdictToDecision } from '@orrery/coordinator/dist/judge/decision-record';
import { readFlags } from '../support/flags';
import type { ReplayTopic } from './judge-replay';
import { writeLabelledDecisions, type LabelledDecision } from './labelled-decision';
import { labelRounds, scorePolicy, stopScores, type Judged, type PolicyScores, type ReplayedRun, type StopScores } from './oracle';
import { loadOrReplay } from './replay-cache';
import { DEFAULT_FIT } from './logistic-fit';
import { halves, trainL1 } from './train-l1';
import { foldsOf } from '../coverage/kfold-eval';

/** Stop cuts on L1's P(stop) the trade-off table sweeps. */
const STOP_CUTS = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
/** The section_recall a tuned cut may lose (issue 28's target). */
const MAX_LOST = 0.005;

const USAGE = 'usage: judge-quality-bench --corpus <corpus.jsonl> --topics <topics.jsonl> --qrels <qrels.jsonl> [--cache <replay.json>] [--labels <labelled.jsonl>] [--limit N]';

interface Point {
  run: ReplayTopic;
  i: number;
  l0: JudgeVerdict;
}

/** The chain's signal at a point, and the level whose verdict was acted on. */
async function chain(p: Point, model: L1Model | null): Promise<Judged> {
  const d = await decideWithLevels(p.run.rounds[p.i]!.input, { judgeEnabled: true, l1: model });
  return { signal: d.verdict.signal, level: d.flags.includes('low-confidence-fallback') ? 'fallback' : d.verdict.level };
}

/** Area under the ROC curve of score `x` for the positives `y` (ties count half). */
function auc(x: readonly number[], y: readonly boolean[]): number {
  const pos = x.filter((_, i) => y[i]);
  const neg = x.filter((_, i) => !y[i]);
  let s = 0;
  for (const p of pos) for (const n of neg) s += p > n ? 1 : p === n ? 0.5 : 0;
  return pos.length && neg.length ? s / (pos.length * neg.length) : NaN;
}

const f3 = (x: number): string => (Number.isFinite(x) ? x.toFixed(3) : '  —  ');
const f2 = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : ' — ');

function header(): string {
  return `${'policy'.padEnd(40)} ${'points'.padStart(6)}  accuracy  P(stop)  R(stop)  rounds  /oracle  /always-continue  section_recall  lost`;
}
function row(label: string, s: StopScores & Partial<PolicyScores>): string {
  const runLevel =
    s.rounds === undefined
      ? ''
      : `  ${f2(s.rounds).padStart(6)}  ${f2(s.rounds / s.oracleRounds!).padStart(7)}  ${f2(s.rounds / s.alwaysContinueRounds!).padStart(16)}  ${f3(s.sectionRecall!).padStart(14)}  ${f3(s.sectionRecallLost!)}`;
  return `${label.padEnd(40)} ${String(s.decisions).padStart(6)}  ${f3(s.accuracy).padStart(8)}  ${f3(s.precision).padStart(7)}  ${f3(s.recall).padStart(7)}${runLevel}`;
}

async function main(): Promise<void> {
  const f = readFlags(process.argv.slice(2), { values: ['--corpus', '--topics', '--qrels', '--cache', '--labels', '--limit'] }, USAGE);
  const [corpus, topics, qrels] = ['--corpus', '--topics', '--qrels'].map((k) => f.value(k));
  if (!corpus || !topics || !qrels) throw new Error(USAGE);
  const limit = f.int('--limit');
  const cache = await loadOrReplay({ corpus, topics, qrels, cachePath: f.value('--cache') ?? '/tmp/orrery-judge-replay.json', ...(limit ? { limit } : {}) }, console.log);

  const labelled = cache.runs.map((r) => ({ run: r, labels: labelRounds(r.rounds.map((x) => x.sectionRecall), cache.cap) }));
  const points = labelled.map(({ run, labels }) => labels.map((_, i): Point => ({ run, i, l0: l0Judge(run.rounds[i]!.input) })));
  const records: LabelledDecision[] = labelled.flatMap(({ run, labels }, t) =>
    labels.map((l, i) => ({ topic: run.topic, decision: verdictToDecision(`replay:${run.topic}`, points[t]![i]!.l0, { now: new Date(0) }), oracle: l.oracle, gain: l.gain })),
  );
  const labelsPath = f.value('--labels');
  if (labelsPath) {
    writeLabelledDecisions(labelsPath, records);
    console.log(`labels: ${records.length} decision points written to ${labelsPath}`);
  }
  const stops = records.filter((r) => r.oracle === 'stop').length;
  const live = records.filter((r) => r.gain !== null);
  console.log(`decision points: ${records.length} (${live.length} with a next round to run), oracle stops ${stops}; rounds per run to the cap: ${labelled.map((l) => l.run.rounds.length).join('')}`);

  // How well each L1 signal alone separates the points where the next round adds a section (AUC; 0.5 is chance).
  const aucs = L1_FEATURES.map((name) => {
    const x = live.map((r) => l1Features(r.decision.signals, [name])[0]!);
    return `${name} ${f2(auc(x, live.map((r) => r.oracle === 'continue')))}`;
  });
  const srNow = labelled.flatMap(({ run, labels }) => labels.filter((l) => l.gain !== null).map((l) => run.rounds[l.round - 1]!.sectionRecall));
  aucs.push(`(not a run's signal: the report's section_recall now ${f2(auc(srNow, live.map((r) => r.oracle === 'continue')))})`);
  console.log(`AUC of each signal for "the next round adds a section", ${live.length} points with a next round: ${aucs.join(', ')}`);

  const half = halves(cache.runs.map((r) => r.topic));
  const runsIn = (idx: number[]): { runs: ReplayedRun[]; pts: Point[][]; recs: LabelledDecision[] } => ({
    runs: idx.map((t) => ({ topic: labelled[t]!.run.topic, sectionRecall: labelled[t]!.run.rounds.map((x) => x.sectionRecall), labels: labelled[t]!.labels })),
    pts: idx.map((t) => points[t]!),
    recs: records.filter((r) => idx.some((t) => labelled[t]!.run.topic === r.topic)),
  });
  const idxOf = (h: number): number[] => labelled.map((_, t) => t).filter((t) => half.get(labelled[t]!.run.topic) === h);

  const score = async (set: ReturnType<typeof runsIn>, decide: (p: Point) => Promise<Judged> | Judged): Promise<{ policy: PolicyScores; judged: Judged[][] }> => {
    const judged: Judged[][] = [];
    for (const ps of set.pts) judged.push(await Promise.all(ps.map((p) => decide(p))));
    return { policy: scorePolicy(set.runs, judged.map((js) => js.map((j) => j.signal))), judged };
  };
  const constant = (s: JudgeSignal) => (): Judged => ({ signal: s, level: 'L0' });

  const held = runsIn(idxOf(1));
  const heldStops = held.runs.reduce((n, r) => n + r.labels.filter((l) => l.oracle === 'stop').length, 0);
  console.log(`\nheld-back half: ${held.runs.length} topics, ${heldStops} oracle stops (committed L1: trained on ${L1_MODEL.trainedOn})`);
  console.log(header());
  const full = await score(held, (p) => chain(p, L1_MODEL));
  const byLevel = new Map<string, { said: JudgeSignal; oracle: 'stop' | 'continue' }[]>();
  full.judged.forEach((js, t) =>
    js.forEach((j, i) => {
      const k = j.level;
      if (!byLevel.has(k)) byLevel.set(k, []);
      byLevel.get(k)!.push({ said: j.signal, oracle: held.runs[t]!.labels[i]!.oracle });
    }),
  );
  for (const k of ['L0', 'L1', 'L2', 'fallback']) if (byLevel.has(k)) console.log(row(`  decided by ${k === 'fallback' ? 'the no-key fallback' : k}`, stopScores(byLevel.get(k)!)));
  const heldPoints = held.pts.flat();
  const spoke = heldPoints.filter((p) => l1Judge(p.l0, L1_MODEL).confidence > 0).length;
  const decidedL1 = byLevel.get('L1')?.length ?? 0;
  console.log(`  L1 speaks (confidence > 0) at ${spoke} of ${heldPoints.length} points and decides (confidence >= 0.7, L0 unsure) at ${decidedL1} (${Math.round((100 * decidedL1) / heldPoints.length)}%)`);
  console.log(row('L0 alone (rules; unsure → continue)', (await score(held, (p) => chain(p, null))).policy));
  console.log(row('L1 alone (every point)', (await score(held, (p) => ({ signal: l1Judge(p.l0, L1_MODEL).signal, level: 'L1' }))).policy));
  console.log(row('overall: L0 → L1 chain', full.policy));
  const livePairs = full.judged.flatMap((js, t) => js.map((j, i) => ({ said: j.signal, label: held.runs[t]!.labels[i]! })).filter((x) => x.label.gain !== null));
  console.log(row('  the chain where a next round existed', stopScores(livePairs.map((x) => ({ said: x.said, oracle: x.label.oracle })))));
  console.log(row('always continue', (await score(held, constant('continue'))).policy));
  console.log(row('always stop', (await score(held, constant('stop'))).policy));

  console.log(`\nthe chain L0 → L1 with L1 trained on other topics, and on all`);
  console.log(header());
  const a = runsIn(idxOf(0));
  const m0 = trainL1(a.recs, 'half 0');
  const m1 = trainL1(held.recs, 'half 1');
  const s1 = await score(held, (p) => chain(p, m0));
  const s0 = await score(a, (p) => chain(p, m1));
  const bothRuns = [...a.runs, ...held.runs];
  console.log(row('trained on half 0, scored on half 1', s1.policy));
  console.log(row('trained on half 1, scored on half 0', s0.policy));
  console.log(row('2-fold (both halves, each held back)', scorePolicy(bothRuns, [...s0.judged, ...s1.judged].map((js) => js.map((j) => j.signal)))));
  const u0 = trainL1(a.recs, 'half 0', { ...DEFAULT_FIT, balanced: false });
  const u1 = trainL1(held.recs, 'half 1', { ...DEFAULT_FIT, balanced: false });
  const su = [...(await score(a, (p) => chain(p, u1))).judged, ...(await score(held, (p) => chain(p, u0))).judged];
  console.log(row('2-fold, classes not balanced in training', scorePolicy(bothRuns, su.map((js) => js.map((j) => j.signal)))));
  // The trade-off the chain's stop cut sits on: each half judged by the L1 trained on the other, stopping where P(stop) reaches the cut.
  console.log(`\nrounds against section_recall lost as the stop cut on L1's P(stop) moves (2-fold; the chain stops at P >= ${L1_ACT_AT})`);
  console.log(header());
  const pStop = (set: ReturnType<typeof runsIn>, m: L1Model): number[][] => set.pts.map((ps) => ps.map((p) => Number(l1Judge(p.l0, m).signals['pStop'])));
  const pBoth = [...pStop(a, m1), ...pStop(held, m0)];
  for (const cut of STOP_CUTS) console.log(row(`  stop at P(stop) >= ${cut.toFixed(2)}`, scorePolicy(bothRuns, pBoth.map((ps) => ps.map((p) => (p >= cut ? 'stop' : 'continue'))))));
  // The cut tuned on the training half only (its own 2-fold: the fewest rounds with at most MAX_LOST lost), then applied to the other half.
  const tunedCut = (train: number[]): number => {
    const inner = foldsOf(train.map((t) => labelled[t]!.run.topic), 2);
    const part = (k: number): ReturnType<typeof runsIn> => runsIn(train.filter((t) => inner.get(labelled[t]!.run.topic) === k));
    const [i0, i1] = [part(0), part(1)];
    const p = [...pStop(i0, trainL1(i1.recs, 'inner 1')), ...pStop(i1, trainL1(i0.recs, 'inner 0'))];
    const runs = [...i0.runs, ...i1.runs];
    const fits = STOP_CUTS.map((cut) => ({ cut, s: scorePolicy(runs, p.map((ps) => ps.map((x) => (x >= cut ? 'stop' : 'continue')))) })).filter((c) => c.s.sectionRecallLost <= MAX_LOST);
    return fits.reduce((b, c) => (c.s.rounds < b.s.rounds ? c : b), { cut: 1, s: { rounds: Infinity } as PolicyScores }).cut;
  };
  const [c0, c1] = [tunedCut(idxOf(0)), tunedCut(idxOf(1))];
  const tuned = [...pStop(a, m1).map((ps) => ps.map((x): JudgeSignal => (x >= c1 ? 'stop' : 'continue'))), ...pStop(held, m0).map((ps) => ps.map((x): JudgeSignal => (x >= c0 ? 'stop' : 'continue')))];
  console.log(row(`  the cut tuned on the training half (${c0.toFixed(2)}, ${c1.toFixed(2)})`, scorePolicy(bothRuns, tuned)));
  // What a judge could reach if it knew what the oracle reads (not a run's signal): stop once the report cites every section.
  console.log(row(`  (oracle's view) stop once section_recall is 1`, scorePolicy(bothRuns, bothRuns.map((r) => r.labels.map((l) => (r.sectionRecall[l.round - 1]! >= 1 ? 'stop' : 'continue'))))));

  const all = runsIn(labelled.map((_, t) => t));
  const mAll = trainL1(all.recs, 'all');
  console.log(row('all topics (trained and scored on all)', (await score(all, (p) => chain(p, mAll))).policy));
  console.log(row('L0 alone, all topics', (await score(all, (p) => chain(p, null))).policy));
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
