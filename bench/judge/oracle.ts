import type { JudgeLevel, JudgeSignal } from '@orrery/decisions';

/** One more round is worth it when it raises the report's section_recall by at least this much. */
export const ORACLE_MIN_GAIN = 0.01;

export type OracleLabel = 'stop' | 'continue';

export interface LabelledRound {
  /** 1-based round after which the judge decides. */
  round: number;
  /** section_recall after the next round minus after this one; null when there is no next round. */
  gain: number | null;
  oracle: OracleLabel;
}

/**
 * The oracle's label for every decision point of a replayed run: the judge is asked after every round below
 * the cap. `sectionRecall[i]` is the report's score after round i + 1; a run that ended before the cap
 * (refinement found nothing to search) has no next round after its last one, so continuing there gains nothing.
 */
export function labelRounds(sectionRecall: readonly number[], cap: number): LabelledRound[] {
  const out: LabelledRound[] = [];
  for (let i = 0; i < sectionRecall.length && i + 1 < cap; i++) {
    const next = sectionRecall[i + 1];
    const gain = next === undefined ? null : next - sectionRecall[i]!;
    out.push({ round: i + 1, gain, oracle: gain !== null && gain >= ORACLE_MIN_GAIN - 1e-9 ? 'continue' : 'stop' });
  }
  return out;
}

/** A judged decision point: what a policy said, and which level said it. */
export interface Judged {
  signal: JudgeSignal;
  level: JudgeLevel | 'fallback';
}

export interface ReplayedRun {
  topic: string;
  sectionRecall: readonly number[];
  labels: readonly LabelledRound[];
}

export interface StopScores {
  decisions: number;
  accuracy: number;
  /** Of the stops said, the share the oracle agrees with (NaN when no stop was said). */
  precision: number;
  /** Of the oracle's stops, the share said. */
  recall: number;
}

export interface PolicyScores extends StopScores {
  rounds: number;
  oracleRounds: number;
  alwaysContinueRounds: number;
  sectionRecall: number;
  /** Mean over topics of always-continue's section_recall minus the policy's. */
  sectionRecallLost: number;
}

/** Accuracy, precision and recall of `stop` (a pivot is not a stop) over (said, oracle) pairs. */
export function stopScores(pairs: readonly { said: JudgeSignal; oracle: OracleLabel }[]): StopScores {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  for (const p of pairs) {
    const s = p.said === 'stop';
    const o = p.oracle === 'stop';
    if (s && o) tp++;
    else if (s) fp++;
    else if (o) fn++;
    else tn++;
  }
  const n = pairs.length;
  return { decisions: n, accuracy: n ? (tp + tn) / n : NaN, precision: tp + fp ? tp / (tp + fp) : NaN, recall: tp + fn ? tp / (tp + fn) : NaN };
}

/** Where a run ends under a sequence of signals: at the first stop, else at its last round. */
function endRound(run: ReplayedRun, stopAt: (i: number) => boolean): number {
  for (let i = 0; i < run.labels.length; i++) if (stopAt(i)) return run.labels[i]!.round;
  return run.sectionRecall.length;
}

/**
 * A policy's scores on replayed runs. `said[t][i]` is the policy's signal at decision point i of run t; the
 * decision points do not depend on earlier signals (every replayed round was continued), so stop scores
 * count every point, and the run-level figures end each run at its first stop.
 */
export function scorePolicy(runs: readonly ReplayedRun[], said: readonly (readonly JudgeSignal[])[]): PolicyScores {
  const pairs = runs.flatMap((r, t) => r.labels.map((l, i) => ({ said: said[t]![i]!, oracle: l.oracle })));
  const mean = (xs: number[]): number => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : NaN);
  const ends = runs.map((r, t) => endRound(r, (i) => said[t]![i] === 'stop'));
  const oracleEnds = runs.map((r) => endRound(r, (i) => r.labels[i]!.oracle === 'stop'));
  const full = runs.map((r) => r.sectionRecall[r.sectionRecall.length - 1]!);
  const got = runs.map((r, t) => r.sectionRecall[ends[t]! - 1]!);
  return {
    ...stopScores(pairs),
    rounds: mean(ends),
    oracleRounds: mean(oracleEnds),
    alwaysContinueRounds: mean(runs.map((r) => r.sectionRecall.length)),
    sectionRecall: mean(got),
    sectionRecallLost: mean(full.map((f, t) => f - got[t]!)),
  };
}
