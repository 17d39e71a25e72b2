import type { TopicJudgments } from './score';

/**
 * How much text each judged section has, and what that bounds. A section of a few words ("Notes.",
 * "Key:.") carries no word of its topic, so no text-based method attributes it by more than luck;
 * these functions say how much section_recall such sections hold. Pure: text comes in as a function.
 */

/** Words (whitespace-separated) in each top-level section of one topic's article. */
export function sectionWords(j: TopicJudgments, textOf: (id: string) => string): Map<string, number> {
  const words = new Map<string, number>([...j.sections].map((s) => [s, 0]));
  for (const [id, section] of j.relevant) words.set(section, words.get(section)! + countWords(textOf(id)));
  return words;
}

/** The section_recall of an engine that reaches exactly the sections of at least `minWords` words, macro over topics. */
export function lengthCeiling(topics: readonly TopicJudgments[], textOf: (id: string) => string, minWords: number): number {
  return mean(topics.map((j) => share([...sectionWords(j, textOf).values()], (w) => w >= minWords)));
}

/**
 * The section_recall of cited passages counted over the sections of at least `minWords` words only, macro
 * over the topics that have such a section: how far a report is from the reachable sections.
 */
export function recallOverLongSections(cited: ReadonlyMap<string, readonly string[]>, topics: readonly TopicJudgments[], textOf: (id: string) => string, minWords: number): number {
  const rows: number[] = [];
  for (const j of topics) {
    const long = new Set([...sectionWords(j, textOf)].filter(([, w]) => w >= minWords).map(([s]) => s));
    if (long.size === 0) continue;
    const hit = new Set((cited.get(j.topic) ?? []).map((id) => j.relevant.get(id)).filter((s): s is string => s !== undefined && long.has(s)));
    rows.push(hit.size / long.size);
  }
  return mean(rows);
}

/**
 * The section_recall of an engine that reaches every section except those whose every passage has the
 * same words (case and punctuation aside) as a passage outside the topic's article, among `allIds` (the
 * whole corpus): "Notes:." in one article is "Notes." in another, and only chance attributes it. This
 * bound holds for any method that reads the text.
 */
export function sameWordsCeiling(topics: readonly TopicJudgments[], textOf: (id: string) => string, allIds: readonly string[]): number {
  const idsByText = new Map<string, string[]>();
  for (const id of allIds) {
    const t = wordsOnly(textOf(id));
    idsByText.set(t, [...(idsByText.get(t) ?? []), id]);
  }
  return mean(
    topics.map((j) => {
      const ambiguous = (id: string): boolean => idsByText.get(wordsOnly(textOf(id)))!.some((other) => !j.relevant.has(other));
      const sections = [...j.sections].map((s) => [...j.relevant].filter(([, sec]) => sec === s).every(([id]) => ambiguous(id)));
      return share(sections, (unattributable) => !unattributable);
    }),
  );
}

function wordsOnly(text: string): string {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .join(' ');
}

function countWords(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function share<T>(xs: readonly T[], keep: (x: T) => boolean): number {
  return xs.length ? xs.filter(keep).length / xs.length : 0;
}

function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0;
}
