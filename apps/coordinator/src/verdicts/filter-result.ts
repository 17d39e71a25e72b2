import type { SearchResult, SearchTask } from '@orrery/protocol';
import { type CheckedResult, checkResult } from './verdict-on-result';
import type { FindingIssueCode } from './verdict-types';

export interface FilteredResult {
  /** The result with only findings that passed every check, and only the sources they cite; null when the format failed. */
  result: SearchResult | null;
  kept: number;
  dropped: number;
  droppedBy: Partial<Record<FindingIssueCode, number>>;
  sourcesKept: number;
  sourcesDropped: number;
}

/**
 * The partial pass: drops bad findings, keeps the rest. Sources no kept finding cites are dropped too, so
 * they do not inflate the ledger's source count (and the novelty measured from it). A finding with several
 * problems is counted under each code in `droppedBy`.
 */
export function filterResult(input: { task: SearchTask; result: unknown; topic: string; checked?: CheckedResult }): FilteredResult {
  const parsed = input.checked ?? checkResult(input.task, input.result, input.topic);
  if (!parsed.ok) return { result: null, kept: 0, dropped: 0, droppedBy: {}, sourcesKept: 0, sourcesDropped: 0 };
  const r = parsed.result;
  const byFinding = parsed.byFinding;
  const droppedBy: Partial<Record<FindingIssueCode, number>> = {};
  const findings = r.findings.filter((_, i) => {
    const issues = byFinding.get(`${i}`) ?? [];
    for (const is of issues) droppedBy[is.code] = (droppedBy[is.code] ?? 0) + 1;
    return issues.length === 0;
  });
  const cited = new Set(findings.map((f) => f.sourceId));
  const sources = r.sources.filter((s) => cited.has(s.id));
  return {
    result: { ...r, findings, sources },
    kept: findings.length,
    dropped: r.findings.length - findings.length,
    droppedBy,
    sourcesKept: sources.length,
    sourcesDropped: r.sources.length - sources.length,
  };
}
