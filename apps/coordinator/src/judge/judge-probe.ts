import type { ModelJudge, ModelJudgeInput } from '@orrery/engine';
import { shortError, withTimeout } from '@orrery/decisions';

/** The smallest judgement there is: one round, one line of state. Costs the judge model a few hundred tokens. */
export const PROBE_INPUT: Omit<ModelJudgeInput, 'abortSignal'> = {
  goal: 'health probe: answer continue',
  round: 1,
  lastActions: ['1 search task, 0 failed'],
  yield: { newFindings: 1, newSources: 1 },
  stateSummary: 'one subtopic with 1 finding; budget left 90%',
  signalHistory: { pivots: 0 },
};

export interface JudgeProbeResult {
  /** It answered a valid verdict within the budget. */
  ok: boolean;
  ms: number;
  /** Why not: a timeout or the error. */
  error?: string;
}

/** Asks the judge model for one minimal verdict within `budgetMs`: whether a round decision can count on it now. */
export async function probeJudge(judge: ModelJudge, budgetMs: number): Promise<JudgeProbeResult> {
  const res = await withTimeout((signal) => judge.judgeVerdict({ ...PROBE_INPUT, abortSignal: signal }), budgetMs);
  if (res.status === 'ok') return { ok: true, ms: res.ms };
  return { ok: false, ms: res.ms, error: res.status === 'timeout' ? `no answer within ${budgetMs} ms` : shortError(res.error) };
}
