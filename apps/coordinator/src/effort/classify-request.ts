import type { RequestClass } from '@orrery/protocol';

export interface Classification {
  class: RequestClass;
  confidence: number;
  signals: Record<string, string | number | boolean>;
}

/** A straightforward question has at most this many words. */
export const STRAIGHTFORWARD_MAX_WORDS = 14;
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

/** Straightforward: a short factual question. */
const FACT_QUESTION = /^\s*(who|when|where|which|what\s+(is|was|are|were)|what\s+year|how\s+(many|much|long|old|far|big))\b/i;

/** Breadth: lists, overviews, broad surveys. */
const BREADTH = [
  { name: 'list', re: /\b(list|enumerate|catalog(ue)?)\b/i },
  { name: 'overview', re: /\b(overview|survey|landscape|summary|summari[sz]e|introduction\s+to)\b/i },
  { name: 'kinds-of', re: /\b(types|kinds|examples|categories|aspects|main|key|major)\s+(of|themes|issues|topics)?\b/i },
  { name: 'all', re: /\b(all|every|various)\b/i },
];

/**
 * L0 request classification (sets the effort): rules first-match in this order —
 *  1. a depth signal (compare, versus, history of, evolution, why, how has … changed, over time, impact of…) → depth;
 *  2. a short (<= STRAIGHTFORWARD_MAX_WORDS) who/when/where/which/what-is/how-many question → straightforward;
 *  3. a breadth signal (list, overview, types of, all…) → breadth;
 *  4. a short noun phrase (<= SHORT_TOPIC_MAX_WORDS, no question) → breadth ("immigration": a broad subject);
 *  5. otherwise breadth with low confidence (0.5): escalate to L2 where a model is available.
 */
export function classifyRequest(topic: string): Classification {
  const text = topic.normalize('NFC').replace(/\s+/g, ' ').trim();
  const words = text ? text.split(' ').length : 0;
  const question = /\?\s*$/.test(text) || FACT_QUESTION.test(text) || /^\s*(how|why|what|is|are|does|do|can)\b/i.test(text);
  const depth = DEPTH.filter((d) => d.re.test(text)).map((d) => d.name);
  const breadth = BREADTH.filter((b) => b.re.test(text)).map((b) => b.name);
  const fact = FACT_QUESTION.test(text);
  const base = { words, question, depthSignals: depth.join(',') || 'none', breadthSignals: breadth.join(',') || 'none' };

  if (depth.length > 0) {
    return { class: 'depth', confidence: depth.length > 1 ? 0.9 : 0.8, signals: { ...base, rule: 'depth-signal' } };
  }
  if (fact && words <= STRAIGHTFORWARD_MAX_WORDS && breadth.length === 0) {
    return { class: 'straightforward', confidence: words <= 10 ? 0.85 : 0.7, signals: { ...base, rule: 'fact-question' } };
  }
  if (breadth.length > 0) {
    return { class: 'breadth', confidence: 0.8, signals: { ...base, rule: 'breadth-signal' } };
  }
  if (!question && words <= SHORT_TOPIC_MAX_WORDS) {
    return { class: 'breadth', confidence: 0.7, signals: { ...base, rule: 'broad-noun-phrase' } };
  }
  return { class: 'breadth', confidence: 0.5, signals: { ...base, rule: 'default' } };
}
