import type { YearWindow } from '@orrery/protocol';

/** One thing a person asked of a plan, read from their words. */
export type FeedbackRequest =
  /** "leave out the 1800s", "nothing before 1900": years every search leaves out. */
  | { kind: 'exclude-years'; years: YearWindow; said: string }
  /** "leave out tariffs", "drop fisheries", "no more dams": a scope the plan drops. */
  | { kind: 'exclude'; target: string; said: string }
  /** "add tariffs", "also cover trade": a scope the plan gains. */
  | { kind: 'add'; target: string; said: string };

const EXCLUDE = /^(?:please\s+)?(?:leave\s+out|exclude|skip|ignore|omit|drop|remove|delete|cut|forget(?:\s+about)?|no\s+more(?:\s+on)?|nothing\s+(?:on|about)|not|no|without)\s+(.+)$/i;
const ADD = /^(?:please\s+)?(?:add|include|also\s+cover|cover|also|plus|more\s+on|more\s+about|look\s+(?:at|into)|focus\s+on)\s+(.+)$/i;
const VERB = String.raw`(?:leave\s+out|exclude|skip|ignore|omit|drop|remove|add|include|also|cover|no\s+more|nothing|focus)`;
/** Clauses: split at ; , . and line breaks, and at "and"/"but" before a new request ("drop dams and add trade"). */
const CLAUSE_BREAK = new RegExp(String.raw`[;,.\n]+|\s+(?:and|but|then)\s+(?=${VERB}\b)`, 'i');

const ORDINAL_CENTURY = /^(\d{1,2})(?:st|nd|rd|th)\s+century$/i;
const DECADE_OR_CENTURY = /^(?:the\s+)?(?:early\s+|late\s+)?'?(\d{2,4})s$/i;
const BEFORE = /^(?:anything\s+|everything\s+)?(?:before|prior\s+to|earlier\s+than)\s+(\d{3,4})$/i;
const AFTER = /^(?:anything\s+|everything\s+)?(?:after|since|later\s+than)\s+(\d{3,4})$/i;
const RANGE = /^(?:the\s+years\s+|from\s+)?(\d{3,4})\s*(?:-|–|to|through|until)\s*(\d{3,4})$/i;
const YEAR = /^(?:the\s+year\s+)?(\d{3,4})$/;

/** The years a phrase names ("the 1800s", "the 1990s", "the 19th century", "before 1900", "1800-1850"), or null. */
export function yearsOf(phrase: string): YearWindow | null {
  const p = phrase.trim().replace(/^the\s+/i, '');
  let m = ORDINAL_CENTURY.exec(p);
  if (m) {
    const c = Number(m[1]);
    return { from: (c - 1) * 100, to: (c - 1) * 100 + 99 };
  }
  m = DECADE_OR_CENTURY.exec(p);
  if (m) {
    const digits = m[1]!;
    if (digits.length === 4 && digits.endsWith('00')) return { from: Number(digits), to: Number(digits) + 99 };
    if (digits.length === 4 && digits.endsWith('0')) return { from: Number(digits), to: Number(digits) + 9 };
    return null;
  }
  if ((m = BEFORE.exec(p))) return { from: -9999, to: Number(m[1]) - 1 };
  if ((m = AFTER.exec(p))) return { from: Number(m[1]) + 1, to: 9999 };
  if ((m = RANGE.exec(p))) return Number(m[1]) <= Number(m[2]) ? { from: Number(m[1]), to: Number(m[2]) } : null;
  if ((m = YEAR.exec(p))) return { from: Number(m[1]), to: Number(m[1]) };
  return null;
}

const cleanTarget = (t: string): string =>
  t
    .trim()
    .replace(/^(?:a\s+section\s+on|a\s+subtopic\s+on|something\s+on|the\s+part\s+(?:on|about)|the\s+section\s+(?:on|about)|anything\s+(?:on|about)|about|on)\s+/i, '')
    .replace(/\s+(?:please|too|as\s+well)$/i, '')
    .trim();

/**
 * What a person's feedback asks of a plan, clause by clause: years to leave out, scopes to drop, scopes to add.
 * Clauses that ask for none of these are returned in `unread`, so the revision can say what it did not act on.
 */
export function readFeedback(feedback: string): { requests: FeedbackRequest[]; unread: string[] } {
  const requests: FeedbackRequest[] = [];
  const unread: string[] = [];
  for (const raw of feedback.split(CLAUSE_BREAK)) {
    const said = raw.trim();
    if (!said) continue;
    const ex = EXCLUDE.exec(said);
    const add = ex ? null : ADD.exec(said);
    const target = cleanTarget((ex ?? add)?.[1] ?? '');
    if (!target) {
      unread.push(said);
      continue;
    }
    const years = ex ? yearsOf(target) : null;
    if (years) requests.push({ kind: 'exclude-years', years, said });
    else requests.push({ kind: ex ? 'exclude' : 'add', target, said });
  }
  return { requests, unread };
}
