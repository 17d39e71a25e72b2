import { type Finding, quoteOccursIn, type SearchResult, type SearchTask } from '@orrery/protocol';
import { mentionsTerm, overlap, termKeys } from '@orrery/language';
import { MIN_RELEVANT_TERM_OVERLAP } from './verdict-thresholds';
import type { FindingIssue } from './verdict-types';

export interface FindingCheckContext {
  task: SearchTask;
  /** The run topic (defaults to task.context.topic). */
  topic: string;
}

/**
 * Meaning and scope checks of every finding of a format-valid result.
 * Meaning: the source is in the result's sources; the quote occurs verbatim (whitespace-normalized) in
 * that source's text; claim + quote share >= MIN_RELEVANT_TERM_OVERLAP term keys with the task's
 * objective, query and the run topic.
 * Scope: subtopicId equals the task's; the finding does not fall into an excluded scope — it does when it
 * mentions more `scope.exclude` terms than it has support for the task's own scope (the `scope.include`
 * terms it mentions, plus one if it overlaps the task's query). So an incidental mention of a sibling
 * term in an on-scope finding passes; a finding about a sibling's scope does not.
 */
export function checkFindings(result: SearchResult, ctx: FindingCheckContext): Map<string, FindingIssue[]> {
  const { task } = ctx;
  const sources = new Map(result.sources.map((s) => [s.id, s]));
  const taskKeys = termKeys(`${task.context.objective} ${task.query} ${ctx.topic} ${task.context.topic}`);
  const queryKeys = termKeys(task.query);
  const out = new Map<string, FindingIssue[]>();
  result.findings.forEach((f, i) => {
    const id = f.id || `#${i}`;
    out.set(`${i}`, checkOne(f, id, sources, taskKeys, queryKeys, task));
  });
  return out;
}

function checkOne(
  f: Finding,
  id: string,
  sources: Map<string, { text: string }>,
  taskKeys: Set<string>,
  queryKeys: Set<string>,
  task: SearchTask,
): FindingIssue[] {
  const issues: FindingIssue[] = [];
  const src = sources.get(f.sourceId);
  if (!src) {
    issues.push({ findingId: id, check: 'meaning', code: 'source-missing', message: `finding ${id} cites source "${f.sourceId}", which is not among the returned sources` });
  } else if (!quoteOccursIn(f.quote, src.text)) {
    issues.push({ findingId: id, check: 'meaning', code: 'quote-not-in-source', message: `finding ${id}'s quote does not occur verbatim in source "${f.sourceId}"` });
  }
  const keys = termKeys(`${f.claim} ${f.quote}`);
  if (taskKeys.size > 0 && overlap(keys, taskKeys) < MIN_RELEVANT_TERM_OVERLAP) {
    issues.push({ findingId: id, check: 'meaning', code: 'off-topic', message: `finding ${id} shares no term with the task objective or topic` });
  }
  if (f.subtopicId !== task.subtopicId) {
    issues.push({ findingId: id, check: 'scope', code: 'wrong-subtopic', message: `finding ${id} is labelled subtopic "${f.subtopicId}", the task is "${task.subtopicId}"` });
  }
  const excluded = task.context.scope.exclude.filter((t) => mentionsTerm(t, keys));
  if (excluded.length > 0) {
    const support = task.context.scope.include.filter((t) => mentionsTerm(t, keys)).length + (overlap(keys, queryKeys) > 0 ? 1 : 0);
    if (excluded.length > support) {
      issues.push({
        findingId: id,
        check: 'scope',
        code: 'excluded-scope',
        message: `finding ${id} is about ${excluded.slice(0, 3).map((t) => `"${t}"`).join(', ')}, excluded from this task's scope`,
      });
    }
  }
  return issues;
}
