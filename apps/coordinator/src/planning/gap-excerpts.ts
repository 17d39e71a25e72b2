import type { Finding, Subtopic, TaskContext } from '@orrery/protocol';
import { overlap, termKeys } from '@orrery/language';

/** Excerpts a later round's task gets, and the characters of each: enough to build on, little enough to stay a brief. */
export const GAP_EXCERPTS = 8;
const EXCERPT_CHARS = 600;

const clip = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

/**
 * The ledger's evidence a gap task builds on: the subtopic's own findings first (a thin subtopic researched again), then
 * those sharing the most terms with its scope beyond the run topic's own words (every finding shares those), else, when
 * none does, those on the topic; each as its claim and verbatim quote under its source id. Deterministic: the same ledger gives the same excerpts.
 */
export function gapExcerpts(subtopic: Subtopic, topic: string, findings: readonly Finding[]): TaskContext['excerpts'] {
  if (findings.length === 0) return [];
  const topicKeys = termKeys(topic);
  const scopeText = [subtopic.title, subtopic.query, ...subtopic.facetTerms, subtopic.brief?.objective ?? '', ...(subtopic.brief?.keyQuestions ?? [])].join(' ');
  const own = new Set([...termKeys(scopeText)].filter((k) => !topicKeys.has(k)));
  const excluded = termKeys(subtopic.excludeTerms.join(' '));
  const rank = (keys: ReadonlySet<string>) =>
    findings
      .map((f, i) => {
        const fk = termKeys(`${f.claim} ${f.quote}`);
        const score = (f.subtopicId === subtopic.id ? 1000 : 0) + overlap(keys, fk) - (excluded.size > 0 ? overlap(excluded, fk) / 2 : 0);
        return { f, i, score };
      })
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score || a.i - b.i);
  // A gap whose own terms no finding shares still builds on what the run knows of its topic, so it looks elsewhere.
  const byOwn = own.size > 0 ? rank(own) : [];
  const scored = byOwn.length > 0 ? byOwn : rank(topicKeys);
  const seen = new Set<string>();
  const out: TaskContext['excerpts'] = [];
  for (const { f } of scored) {
    const key = `${f.sourceId}\u0000${f.quote}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ sourceId: f.sourceId, text: clip(`${f.claim}\nQuote: "${f.quote}"`, EXCERPT_CHARS) });
    if (out.length >= GAP_EXCERPTS) break;
  }
  return out;
}
