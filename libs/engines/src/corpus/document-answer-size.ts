import type { Finding } from '@orrery/protocol';
import { classifyRequest } from '../question/classify-request';

/** Passages a document answer cites by default: what answers, not all that matches. */
export const DOC_ANSWER_PASSAGES = 8;
/** Passages when the question asks for breadth ("list all…", "an overview of…"). */
export const BROAD_DOC_ANSWER_PASSAGES = 16;

/**
 * The passages a document answer cites: the most relevant first, one per source, at most
 * DOC_ANSWER_PASSAGES (BROAD_DOC_ANSWER_PASSAGES when the question carries a breadth signal).
 */
export function answeringPassages(findings: readonly Finding[], topic: string): Finding[] {
  const broad = classifyRequest(topic).signals.breadthSignals !== 'none';
  const max = broad ? BROAD_DOC_ANSWER_PASSAGES : DOC_ANSWER_PASSAGES;
  const seen = new Set<string>();
  const out: Finding[] = [];
  for (const f of [...findings].sort((a, b) => (b.relevance?.score ?? 0) - (a.relevance?.score ?? 0))) {
    if (seen.has(f.sourceId)) continue;
    seen.add(f.sourceId);
    out.push(f);
    if (out.length >= max) break;
  }
  return out;
}
