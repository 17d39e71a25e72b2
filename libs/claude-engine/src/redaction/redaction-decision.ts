import type { EngineDecision } from '@orrery/engine';
import type { Redactor } from './redact';

/** A `redaction` decision when anything was redacted before a model request: counts per kind only, never values. */
export function redactionDecision(what: string, redactor: Redactor): EngineDecision | undefined {
  if (redactor.total === 0) return undefined;
  const kinds = Object.entries(redactor.counts).filter(([, n]) => n > 0);
  return {
    decisionType: 'redaction',
    level: 'L0',
    confidence: 1,
    conclusion: `${what}: redacted ${redactor.total} personal data values before any model request (${kinds.map(([k, n]) => `${k} ${n}`).join(', ')})`,
    signals: { total: redactor.total, ...Object.fromEntries(kinds) },
  };
}
