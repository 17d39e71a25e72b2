import type { JudgeVerdict } from './judge-types';

const SIGNALS = new Set(['continue', 'stop', 'pivot']);
const LEVELS = new Set(['L0', 'L2', 'L3']);

/**
 * Strict output contract for verdicts coming from outside L0 (an L2 model): anything that does not
 * match exactly is invalid and is treated like a failed call (seed 004 §6.1: unparseable = no verdict).
 */
export function isJudgeVerdict(x: unknown): x is JudgeVerdict {
  if (typeof x !== 'object' || x === null) return false;
  const v = x as Record<string, unknown>;
  if (!SIGNALS.has(v.signal as string)) return false;
  if (typeof v.confidence !== 'number' || !(v.confidence >= 0 && v.confidence <= 1)) return false;
  if (typeof v.reason !== 'string') return false;
  if (!LEVELS.has(v.level as string)) return false;
  if (typeof v.stateVersion !== 'number' || !Number.isInteger(v.stateVersion) || v.stateVersion < 0) return false;
  if (typeof v.signals !== 'object' || v.signals === null || Array.isArray(v.signals)) return false;
  for (const val of Object.values(v.signals)) {
    const t = typeof val;
    if (!(val === null || t === 'number' || t === 'string' || t === 'boolean')) return false;
  }
  return true;
}
