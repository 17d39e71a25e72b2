import type { RequestClass } from '@orrery/protocol';
import { type AnswerKind, questionForm } from './question-form';

export interface Classification {
  class: RequestClass;
  confidence: number;
  signals: Record<string, string | number | boolean>;
}

/** Past this many words a request is a brief, not a question with one answer. */
export const STRAIGHTFORWARD_MAX_WORDS = 30;
/** A topic of at most this many words with no question form is a broad noun phrase (breadth). */
export const SHORT_TOPIC_MAX_WORDS = 4;

/** Depth: comparisons, causes, change over time. */
const DEPTH = [
  { name: 'compare', re: /\b(compar(e|es|ed|ing|ison|isons)|contrast(s|ed|ing)?)\b/i },
  { name: 'versus', re: /\b(versus|vs\.?)(?=\s|$)/i },
  { name: 'difference-between', re: /\bdifferences?\s+between\b/i },
  { name: 'history-of', re: /\bhistory\s+of\b/i },
  { name: 'evolution', re: /\b(evolution|evolv(e|ed|es|ing))\b/i },
  { name: 'why', re: /\bwhy\b/i },
  { name: 'how-changed', re: /\bhow\s+(has|have|did|do|does)\b.*\b(chang|shift|develop|grow|grew|declin|evolv)\w*/i },
  { name: 'over-time', re: /\b(over\s+time|over\s+the\s+(years|decades|centuries)|trends?\s+in|since\s+\d{4}|from\s+\d{4}\s+to\s+\d{4})\b/i },
  { name: 'cause-effect', re: /\b(impact|effects?|causes?|consequences?|relationship\s+between|influence)\s+(of|on|between)\b/i },
  { name: 'trade-offs', re: /\b(pros\s+and\s+cons|trade-?offs?)\b/i },
];
/** A comparison has two answers, whatever the question word. */
const COMPARISON = new Set(['compare', 'versus', 'difference-between']);

/** Breadth: lists, overviews, broad surveys. */
const BREADTH = [
  { name: 'list', re: /\b(list|enumerate|catalog(ue)?)\b/i },
  { name: 'overview', re: /\b(overview|survey|landscape|summary|summari[sz]e|introduction\s+to)\b/i },
  { name: 'kinds-of', re: /\b(types|kinds|examples|categories|aspects|main|key|major)\s+(of|themes|issues|topics)?\b/i },
  { name: 'all', re: /\b(all|every|various)\b/i },
];

/** A time, a person, a count or a document is one answer even when the question also speaks of change. */
const FIRM: ReadonlySet<AnswerKind> = new Set(['time', 'person', 'count', 'document']);

/**
 * L0 request classification (sets the effort), by the question's form (see `questionForm`):
 *  1. a question that expects one answer (when / in what year / who / which president / how many / which
 *     address, and "first" / "last" or a named year narrowing a question) → straightforward, unless it
 *     compares; a yes/no or "what is" question also needs no depth or breadth signal;
 *  2. a depth signal (compare, versus, history of, evolution, why, how has … changed, over time, impact of…) → depth;
 *  3. a breadth signal (list, overview, types of, all…) → breadth;
 *  4. a short noun phrase (<= SHORT_TOPIC_MAX_WORDS, no question) → breadth ("immigration": a broad subject);
 *  5. otherwise breadth with low confidence (0.5): escalate to L2 where a model is available.
 */
export function classifyRequest(topic: string): Classification {
  const text = topic.normalize('NFC').replace(/\s+/g, ' ').trim();
  const words = text ? text.split(' ').length : 0;
  const form = questionForm(text);
  const question = /\?\s*$/.test(text) || form.opener !== null;
  const depth = DEPTH.filter((d) => d.re.test(text)).map((d) => d.name);
  const breadth = BREADTH.filter((b) => b.re.test(text)).map((b) => b.name);
  const base = {
    words,
    question,
    expects: form.expects ?? 'many',
    form: form.rule,
    ordinal: form.ordinal ?? 'none',
    years: form.years ? `${form.years.from}-${form.years.to}` : 'none',
    depthSignals: depth.join(',') || 'none',
    breadthSignals: breadth.join(',') || 'none',
  };

  const single = form.expects !== null && words <= STRAIGHTFORWARD_MAX_WORDS;
  const firm = single && FIRM.has(form.expects!) && !depth.some((d) => COMPARISON.has(d));
  const plain = single && depth.length === 0 && breadth.length === 0;
  if (firm || plain) {
    return { class: 'straightforward', confidence: firm ? 0.85 : 0.7, signals: { ...base, rule: 'single-answer' } };
  }
  if (depth.length > 0) {
    return { class: 'depth', confidence: depth.length > 1 ? 0.9 : 0.8, signals: { ...base, rule: 'depth-signal' } };
  }
  if (breadth.length > 0) {
    return { class: 'breadth', confidence: 0.8, signals: { ...base, rule: 'breadth-signal' } };
  }
  if (!question && words <= SHORT_TOPIC_MAX_WORDS) {
    return { class: 'breadth', confidence: 0.7, signals: { ...base, rule: 'broad-noun-phrase' } };
  }
  return { class: 'breadth', confidence: 0.5, signals: { ...base, rule: 'default' } };
}
