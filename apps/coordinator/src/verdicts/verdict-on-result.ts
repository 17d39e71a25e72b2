import { SearchResultSchema, type SearchResult, type SearchTask, zodIssues } from '@orrery/protocol';
import { buildCorrection } from './build-correction';
import { checkFindings } from './check-findings';
import { MAX_RETRIES } from './verdict-thresholds';
import type { CheckOutcome, FindingIssue, ResultVerdict } from './verdict-types';

export interface VerdictInput {
  task: SearchTask;
  /** The raw result as received from the queue: unknown until it parses. */
  result: unknown;
  topic: string;
  /** 0-based attempt of this task (0 = first dispatch). */
  attempt: number;
  /** The result already parsed and checked (checkResult), so that a verdict and a filter share the work. */
  checked?: CheckedResult;
}

/** A raw result parsed and each of its findings checked, keyed by the finding's index. */
export type CheckedResult = { ok: true; result: SearchResult; byFinding: Map<string, FindingIssue[]> } | { ok: false; problems: string[] };

/** Parses a raw result with the protocol schema and checks it belongs to the task. */
export function parseSearchResult(task: SearchTask, raw: unknown): { ok: true; result: SearchResult } | { ok: false; problems: string[] } {
  const parsed = SearchResultSchema.safeParse(raw);
  if (!parsed.success) {
    return { ok: false, problems: zodIssues(parsed.error, 5) };
  }
  if (parsed.data.taskId !== task.taskId) return { ok: false, problems: [`taskId "${parsed.data.taskId}" is not "${task.taskId}"`] };
  return { ok: true, result: parsed.data };
}

export function checkResult(task: SearchTask, raw: unknown, topic: string): CheckedResult {
  const parsed = parseSearchResult(task, raw);
  return parsed.ok ? { ...parsed, byFinding: checkFindings(parsed.result, { task, topic }) } : parsed;
}

/** Sources of the findings that failed only for want of a shared term: what to ask the hub's precision guard about. */
export function offTopicSourceIds(checked: CheckedResult): string[] {
  if (!checked.ok) return [];
  const ids = new Set<string>();
  for (const [i, issues] of checked.byFinding) if (issues.some((x) => x.code === 'off-topic')) ids.add(checked.result.findings[Number(i)]!.sourceId);
  return [...ids];
}

/**
 * The check once the hub's precision guard is heard: a finding whose source it vouches for is not
 * off-topic for want of a shared term. Its other issues (a quote not in the source, a sibling's scope) stand.
 */
export function withVouchedSources(checked: CheckedResult, vouched: ReadonlySet<string>): CheckedResult {
  if (!checked.ok || vouched.size === 0) return checked;
  const byFinding = new Map(
    [...checked.byFinding].map(([i, issues]) => [i, vouched.has(checked.result.findings[Number(i)]!.sourceId) ? issues.filter((x) => x.code !== 'off-topic') : issues]),
  );
  return { ...checked, byFinding };
}

/**
 * The execution verdict on one subagent search result (format, meaning, and scope in place of side effects).
 * A result whose findings all pass is `pass`; one that keeps some is `pass-partial`, its failures listed (the
 * coordinator merges filterResult(...).result, the good findings); one with nothing usable is `retry` (the task is
 * re-sent with a concrete correction) while attempt < MAX_RETRIES, then `discard`.
 */
export function verdictOnResult(input: VerdictInput): ResultVerdict {
  const { task, attempt } = input;
  const failing = attempt >= MAX_RETRIES ? 'discard' : 'retry';
  const parsed = input.checked ?? checkResult(task, input.result, input.topic);
  if (!parsed.ok) {
    const skipped: CheckOutcome = { status: 'skipped', issues: ['format failed'] };
    return {
      verdict: failing,
      detail: `format: ${parsed.problems.join('; ')}`,
      checks: { format: { status: 'fail', issues: parsed.problems }, meaning: skipped, scope: skipped },
      ...(failing === 'retry' ? { correction: buildCorrection([], parsed.problems) } : {}),
      issues: [],
      counts: { findings: 0, badFindings: 0 },
    };
  }
  const byFinding = parsed.byFinding;
  const issues: FindingIssue[] = [...byFinding.values()].flat();
  const bad = [...byFinding.values()].filter((l) => l.length > 0).length;
  const meaning = issues.filter((i) => i.check === 'meaning').map((i) => i.message);
  const scope = issues.filter((i) => i.check === 'scope').map((i) => i.message);
  const checks = {
    format: { status: 'pass', issues: [] } as CheckOutcome,
    meaning: { status: meaning.length ? 'fail' : 'pass', issues: meaning } as CheckOutcome,
    scope: { status: scope.length ? 'fail' : 'pass', issues: scope } as CheckOutcome,
  };
  const n = parsed.result.findings.length;
  if (bad === 0) {
    return { verdict: 'pass', detail: n ? `${n} finding(s) checked` : 'no findings (a valid, empty search)', checks, issues, counts: { findings: n, badFindings: 0 } };
  }
  if (bad < n) {
    const failures = [...byFinding].filter(([, l]) => l.length > 0).map(([i, l]) => ({ findingId: parsed.result.findings[Number(i)]!.id, issues: l.map((x) => x.code) }));
    return {
      verdict: 'pass-partial',
      detail: `${n - bad} of ${n} finding(s) kept; ${bad} failed: ${issues.slice(0, 3).map((i) => i.message).join('; ')}`,
      checks,
      issues,
      counts: { findings: n, badFindings: bad },
      failures,
    };
  }
  return {
    verdict: failing,
    detail: `${bad} of ${n} finding(s) failed: ${issues.slice(0, 3).map((i) => i.message).join('; ')}${failing === 'discard' ? ` (attempt ${attempt}: no retry left)` : ''}`,
    checks,
    ...(failing === 'retry' ? { correction: buildCorrection(issues) } : {}),
    issues,
    counts: { findings: n, badFindings: bad },
  };
}
