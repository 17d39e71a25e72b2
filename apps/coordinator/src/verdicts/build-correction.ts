import { CORRECTION_MAX_CHARS } from './verdict-thresholds';
import type { FindingIssue, FindingIssueCode } from './verdict-types';

const ADVICE: Record<FindingIssueCode, string> = {
  'quote-not-in-source': 'copy every quote character for character from the source text (do not paraphrase, shorten or fix it)',
  'source-missing': 'include every source you cite in `sources`, with the exact id the finding uses',
  'off-topic': 'keep only findings about the objective and the run topic',
  'excluded-scope': 'leave topics listed in scope.exclude to the tasks that own them',
  'wrong-subtopic': 'label every finding with this task\'s subtopicId',
};

/** A concrete correction for the re-dispatched task's `context.correction`: what went wrong, and what to do instead. */
export function buildCorrection(issues: FindingIssue[], formatProblems: string[] = []): string {
  const parts: string[] = [];
  if (formatProblems.length) {
    parts.push(`Your previous result did not match the required search result format (${formatProblems.slice(0, 3).join('; ')}); return exactly that JSON shape.`);
  }
  const byCode = new Map<FindingIssueCode, FindingIssue[]>();
  for (const i of issues) byCode.set(i.code, [...(byCode.get(i.code) ?? []), i]);
  for (const [code, list] of byCode) {
    const ids = list.slice(0, 5).map((i) => i.findingId).join(', ');
    const more = list.length > 5 ? ` and ${list.length - 5} more` : '';
    parts.push(`Rejected ${list.length} finding(s) (${ids}${more}): ${list[0]!.message}${list.length > 1 ? ', and similar' : ''}; ${ADVICE[code]}.`);
  }
  const text = parts.join(' ');
  return text.length <= CORRECTION_MAX_CHARS ? text : `${text.slice(0, CORRECTION_MAX_CHARS - 1)}…`;
}
