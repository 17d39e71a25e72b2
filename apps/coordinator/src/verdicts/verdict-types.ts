/**
 * pass: every finding passed; pass-partial: some passed and are kept, the failures are listed; retry: nothing usable
 * came back and the task is re-sent with a correction; discard: nothing usable and no retry left.
 */
export type ResultVerdictKind = 'pass' | 'pass-partial' | 'retry' | 'discard';

export type FindingIssueCode = 'source-missing' | 'quote-not-in-source' | 'off-topic' | 'excluded-scope' | 'wrong-subtopic';

export interface FindingIssue {
  findingId: string;
  check: 'meaning' | 'scope';
  code: FindingIssueCode;
  message: string;
}

export interface CheckOutcome {
  status: 'pass' | 'fail' | 'skipped';
  issues: string[];
}

export interface ResultVerdict {
  verdict: ResultVerdictKind;
  detail: string;
  checks: { format: CheckOutcome; meaning: CheckOutcome; scope: CheckOutcome };
  /** On retry: the sentence(s) to put in the re-dispatched task's `context.correction` (<= 2000 chars). */
  correction?: string;
  /** Per-finding problems (empty when the format check failed). */
  issues: FindingIssue[];
  counts: { findings: number; badFindings: number };
  /** On pass-partial: the findings that failed and why (the rest are merged). */
  failures?: Array<{ findingId: string; issues: string[] }>;
}
