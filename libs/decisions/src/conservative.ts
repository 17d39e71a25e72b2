import type { JudgeSignal } from './judge-types';

/** stop > pivot > continue: when two judgements of the same moment disagree, the more conservative wins. */
const RANK: Readonly<Record<JudgeSignal, number>> = { continue: 0, pivot: 1, stop: 2 };

/** The most conservative of several judgements (the first of equals), by the signal `signalOf` reads. */
export function mostConservative<T>(items: readonly T[], signalOf: (t: T) => JudgeSignal): T {
  if (!items.length) throw new Error('mostConservative: nothing to choose from');
  return items.reduce((a, b) => (RANK[signalOf(b)] > RANK[signalOf(a)] ? b : a));
}
