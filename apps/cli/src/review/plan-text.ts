import { counted } from '@orrery/engine';
import type { Plan } from '@orrery/protocol';

/** A proposed plan as a person reads it on a terminal: its subtopics with their queries, the years left out and the authors searched. */
export function planText(plan: Plan): string {
  const lines = [`Proposed plan (${plan.classification}, ${counted(plan.subtopics.length, 'subtopic')}):`];
  plan.subtopics.forEach((s, i) => lines.push(`  ${i + 1}. ${s.title}  [${s.id}]`, `     query: ${s.query}`));
  if (plan.excludeYears?.length) lines.push(`  years left out: ${plan.excludeYears.map((w) => (w.from === w.to ? `${w.from}` : `${w.from}–${w.to}`)).join(', ')}`);
  if (plan.authors?.length) lines.push(`  searched: only what ${plan.authors.join(' and ')} wrote or said`);
  return `${lines.join('\n')}\n`;
}
