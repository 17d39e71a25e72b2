/**
 * Trains the L1 round judge from labelled decision logs and writes its weights into the coordinator.
 *
 *   node bench/dist/judge/train-judge.js --labels <labelled.jsonl> [--all] [--out libs/decisions/src/l1-weights.ts]
 *
 * The labels come from `npm run bench:judge-quality -- … --labels <labelled.jsonl>`. By default it trains on
 * the fixed first half of the topics (by hash), so the bench can report on the other half; --all trains on all.
 */
import { writeFileSync } from 'node:fs';
import { readFlags } from '../support/flags';
import { readLabelledDecisions } from './labelled-decision';
import { halves, isRoundJudgeL0, trainL1, weightsModule } from './train-l1';

const USAGE = 'usage: train-judge --labels <labelled.jsonl> [--all] [--out <l1-weights.ts>]';

function main(): void {
  const f = readFlags(process.argv.slice(2), { values: ['--labels', '--out'], switches: ['--all'] }, USAGE);
  const labels = f.value('--labels');
  if (!labels) throw new Error(USAGE);
  const out = f.value('--out') ?? 'libs/decisions/src/l1-weights.ts';
  const t0 = performance.now();
  const rows = readLabelledDecisions(labels).filter(isRoundJudgeL0);
  const half = halves(rows.map((r) => r.topic));
  const train = f.has('--all') ? rows : rows.filter((r) => half.get(r.topic) === 0);
  const topics = new Set(train.map((r) => r.topic)).size;
  const model = trainL1(train, `${f.has('--all') ? 'all' : 'half 0 of'} ${half.size} topics (${topics} topics, ${train.length} decisions) of ${labels.split('/').pop()}`);
  writeFileSync(out, weightsModule(model));
  const stops = train.filter((r) => r.oracle === 'stop').length;
  console.log(`trained L1 on ${train.length} decisions of ${topics} topics (${stops} oracle stops) in ${Math.round(performance.now() - t0)} ms; weights written to ${out}`);
  console.log(model.features.map((n, i) => `${n} ${model.weights[i]!.toFixed(3)}`).join(', ') + `, bias ${model.bias.toFixed(3)}`);
}

try {
  main();
} catch (e: unknown) {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
}
