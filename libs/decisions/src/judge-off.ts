import { BUDGET_OR_SATURATION_RULES, l0Rules } from './l0-judge';
import type { JudgeInput, JudgeVerdict } from './judge-types';

/**
 * JUDGE=off (the kill switch): rules alone with conservative defaults.
 * Never pivot; stop only on budget (exhaustion or wrap-up) or clear saturation; otherwise continue.
 * Never calls a model. The original rule stays in `signals.rule`; `signals.judgeOff` marks the mode.
 */
export function judgeOffVerdict(input: JudgeInput): JudgeVerdict {
  const v = l0Rules(input);
  const rule = String(v.signals.rule);
  if (v.signal === 'stop' && BUDGET_OR_SATURATION_RULES.has(rule)) {
    return { ...v, signals: { ...v.signals, judgeOff: true } };
  }
  if (v.signal === 'continue') return { ...v, signals: { ...v.signals, judgeOff: true } };
  return {
    ...v,
    signal: 'continue',
    reason: `${v.reason}; JUDGE=off: ${v.signal} suppressed → continue`,
    signals: { ...v.signals, judgeOff: true, proposedSignal: v.signal },
  };
}
