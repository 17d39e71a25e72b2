/**
 * Micro-benchmark of the L0 judge.
 *   npx tsc -b bench && node bench/dist/judge/l0-judge-bench.js [--calls 1000000] [--batches 9] [--json]
 * Times l0Judge over varied inputs after a warm-up, in repeated batches, and reports the median ns/op,
 * together with two baselines measured in the same run and interleaved batch by batch (the machines are
 * noisy, so the ratios are the figures to compare): a trivial call over the same inputs, and
 * JSON.stringify of the input (what merely logging the input costs). The L1 model (l1Judge on the L0 verdict
 * it is given) is timed the same way.
 */
import { type JudgeInput, l0Judge, L1_MODEL, l1Judge } from '@orrery/decisions';
import { benchInputs } from './bench-inputs';

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : dflt;
}

const CALLS = arg('calls', 1_000_000);
const BATCHES = arg('batches', 9);
const STRINGIFY_CALLS = Math.max(1000, Math.floor(CALLS / 10));
const INPUTS = benchInputs(1024);
const MASK = INPUTS.length - 1;

let sink = 0;

function trivial(i: JudgeInput): number {
  return i.state.novelty + i.round;
}

function timeJudge(calls: number): number {
  const t0 = process.hrtime.bigint();
  let acc = 0;
  for (let k = 0; k < calls; k++) {
    const v = l0Judge(INPUTS[k & MASK]!);
    acc += v.confidence + v.signal.length;
  }
  const ns = Number(process.hrtime.bigint() - t0);
  sink += acc;
  return ns / calls;
}

const L0_VERDICTS = INPUTS.map((i) => l0Judge(i));

function timeL1(calls: number): number {
  const t0 = process.hrtime.bigint();
  let acc = 0;
  for (let k = 0; k < calls; k++) {
    const v = l1Judge(L0_VERDICTS[k & MASK]!, L1_MODEL);
    acc += v.confidence + v.signal.length;
  }
  const ns = Number(process.hrtime.bigint() - t0);
  sink += acc;
  return ns / calls;
}

function timeTrivial(calls: number): number {
  const t0 = process.hrtime.bigint();
  let acc = 0;
  for (let k = 0; k < calls; k++) acc += trivial(INPUTS[k & MASK]!);
  const ns = Number(process.hrtime.bigint() - t0);
  sink += acc;
  return ns / calls;
}

function timeStringify(calls: number): number {
  const t0 = process.hrtime.bigint();
  let acc = 0;
  for (let k = 0; k < calls; k++) acc += JSON.stringify(INPUTS[k & MASK]!).length;
  const ns = Number(process.hrtime.bigint() - t0);
  sink += acc;
  return ns / calls;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const quantile = (xs: number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

// What the inputs exercise.
const mix: Record<string, number> = {};
for (const i of INPUTS) {
  const v = l0Judge(i);
  const key = `${v.signals.rule}${v.signals.guard && v.signals.guard !== 'none' ? `/${v.signals.guard}` : ''} → ${v.signal}`;
  mix[key] = (mix[key] ?? 0) + 1;
}

// Warm-up: let the JIT settle on all three loops.
timeJudge(Math.min(200_000, CALLS));
timeTrivial(Math.min(200_000, CALLS));
timeL1(Math.min(200_000, CALLS));
timeStringify(Math.min(20_000, STRINGIFY_CALLS));

const judge: number[] = [];
const base: number[] = [];
const str: number[] = [];
const ratioStr: number[] = [];
const ratioBase: number[] = [];
const l1: number[] = [];
const ratioL1: number[] = [];
for (let b = 0; b < BATCHES; b++) {
  const j = timeJudge(CALLS);
  const m = timeL1(CALLS);
  const t = timeTrivial(CALLS);
  const s = timeStringify(STRINGIFY_CALLS);
  judge.push(j);
  base.push(t);
  str.push(s);
  ratioStr.push(j / s);
  ratioBase.push(j / t);
  l1.push(m);
  ratioL1.push(m / s);
}

const result = {
  node: process.version,
  inputs: INPUTS.length,
  callsPerBatch: CALLS,
  stringifyCallsPerBatch: STRINGIFY_CALLS,
  batches: BATCHES,
  l0JudgeNsPerOp: { median: median(judge), p10: quantile(judge, 0.1), p90: quantile(judge, 0.9) },
  l1JudgeNsPerOp: { median: median(l1), p10: quantile(l1, 0.1), p90: quantile(l1, 0.9) },
  ratioL1ToStringify: median(ratioL1),
  trivialCallNsPerOp: { median: median(base), p10: quantile(base, 0.1), p90: quantile(base, 0.9) },
  jsonStringifyNsPerOp: { median: median(str), p10: quantile(str, 0.1), p90: quantile(str, 0.9) },
  /** Median of per-batch ratios (each ratio from interleaved, same-conditions batches). */
  ratioJudgeToStringify: median(ratioStr),
  ratioJudgeToTrivialCall: median(ratioBase),
  ruleMix: mix,
  sink: sink % 1000,
};

if (process.argv.includes('--json')) {
  console.log(JSON.stringify(result, null, 2));
} else {
  const f = (x: number) => x.toFixed(1).padStart(8);
  console.log(`L0 judge micro-benchmark — node ${result.node}, ${INPUTS.length} varied inputs, ${BATCHES} batches × ${CALLS} calls (stringify: ${STRINGIFY_CALLS})`);
  console.log(`                       median      p10      p90   (ns/op)`);
  console.log(`  l0Judge            ${f(result.l0JudgeNsPerOp.median)} ${f(result.l0JudgeNsPerOp.p10)} ${f(result.l0JudgeNsPerOp.p90)}`);
  console.log(`  l1Judge            ${f(result.l1JudgeNsPerOp.median)} ${f(result.l1JudgeNsPerOp.p10)} ${f(result.l1JudgeNsPerOp.p90)}`);
  console.log(`  trivial call       ${f(result.trivialCallNsPerOp.median)} ${f(result.trivialCallNsPerOp.p10)} ${f(result.trivialCallNsPerOp.p90)}`);
  console.log(`  JSON.stringify(in) ${f(result.jsonStringifyNsPerOp.median)} ${f(result.jsonStringifyNsPerOp.p10)} ${f(result.jsonStringifyNsPerOp.p90)}`);
  console.log(`  ratio l0Judge / JSON.stringify(input): ${result.ratioJudgeToStringify.toFixed(3)}   (median of per-batch ratios)`);
  console.log(`  ratio l1Judge / JSON.stringify(input): ${result.ratioL1ToStringify.toFixed(3)}`);
  console.log(`  ratio l0Judge / trivial call:          ${result.ratioJudgeToTrivialCall.toFixed(1)}`);
  console.log(`  rule mix: ${Object.entries(mix).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k}: ${n}`).join('; ')}`);
}
