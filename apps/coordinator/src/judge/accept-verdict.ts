import type { JudgeVerdict } from './judge-types';

export type AcceptResult =
  | { accepted: true; verdict: JudgeVerdict }
  | { accepted: false; dropped: true; reason: 'stale' | 'future'; detail: string; verdict: JudgeVerdict };

/**
 * Race guard (seed 000 §5.4): a verdict is acted on only if it was computed on the current state version.
 * Older → dropped as stale (the state moved on while the judge was thinking); newer → dropped as
 * inconsistent (the caller read an old state; never act on it either).
 */
export function acceptVerdict(verdict: JudgeVerdict, currentStateVersion: number): AcceptResult {
  if (verdict.stateVersion < currentStateVersion) {
    return {
      accepted: false,
      dropped: true,
      reason: 'stale',
      detail: `verdict computed on state version ${verdict.stateVersion}, state is now at ${currentStateVersion}`,
      verdict,
    };
  }
  if (verdict.stateVersion > currentStateVersion) {
    return {
      accepted: false,
      dropped: true,
      reason: 'future',
      detail: `verdict computed on state version ${verdict.stateVersion}, ahead of the current ${currentStateVersion}`,
      verdict,
    };
  }
  return { accepted: true, verdict };
}
