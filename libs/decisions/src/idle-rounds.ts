import type { JudgeInput } from './judge-types';

/** A round is idle when it brought no new finding and no new source (or dispatched nothing). */
export function isIdleYield(y: { newFindings: number; newSources: number; tasksDispatched?: number }): boolean {
  return (y.newFindings === 0 && y.newSources === 0) || y.tasksDispatched === 0;
}

/** Consecutive idle rounds at the end of a list of completed rounds (protocol `Round` fits). */
export function idleRoundsFromRounds(rounds: ReadonlyArray<{ newFindings: number; newSources: number }>): number {
  let n = 0;
  for (let i = rounds.length - 1; i >= 0; i--) {
    if (!isIdleYield(rounds[i]!)) break;
    n++;
  }
  return n;
}

/** The idle-round count the judge uses: the given one, else derived from the last round's yield. */
export function idleRoundsOf(input: JudgeInput): number {
  return input.state.idleRounds ?? (isIdleYield(input.lastActions) ? 1 : 0);
}
