import type { RequestClass } from '@orrery/protocol';

export interface Classification {
  classification: RequestClass;
  rule: string;
}

const DEPTH = /\b(compare|comparison|compared|versus|vs\.?|contrast|how (?:has|have|did|does|do) .+ (?:change|changed|evolve|evolved|develop|developed)|history of|evolution of|over time|trends?)\b/i;
const FACTUAL = /^\s*(who|when|where|what|which)\s+(is|was|are|were|did|does|do)\b/i;

/** L0 rules: a short factual question is straightforward; comparisons and histories are depth; else breadth. */
export function classifyRequest(topic: string): Classification {
  const words = topic.trim().split(/\s+/).length;
  if (DEPTH.test(topic)) return { classification: 'depth', rule: 'comparison-or-change-over-time' };
  if (FACTUAL.test(topic) && words <= 12) return { classification: 'straightforward', rule: 'short-factual-question' };
  return { classification: 'breadth', rule: 'default-breadth' };
}
