import type { JudgeVerdict } from '@orrery/decisions';
import { clipText, type Decision } from '@orrery/protocol';

/** A verdict as the protocol's structured decision record (the `decision` run event). */
export function verdictToDecision(runId: string, verdict: JudgeVerdict, opts: { now: Date; flags?: readonly string[]; decisionType?: string }): Decision {
  return {
    runId,
    ts: opts.now.toISOString(),
    decisionType: opts.decisionType ?? 'judge',
    level: verdict.level,
    confidence: verdict.confidence,
    conclusion: clipText(`${verdict.signal}: ${verdict.reason}`, 2000),
    signals: { ...verdict.signals, signal: verdict.signal, ...(opts.flags && opts.flags.length ? { flags: [...opts.flags] } : {}) },
    stateVersion: verdict.stateVersion,
  };
}
