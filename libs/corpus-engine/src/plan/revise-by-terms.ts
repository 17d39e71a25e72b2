import type { Plan, Subtopic, YearWindow } from '@orrery/protocol';
import { assignExclusions, facetTitle } from './subtopic-builder';
import { slugify } from '@orrery/passages';
import { analyzeTerms } from '@orrery/language';
import { clipText } from '@orrery/protocol';
import { readFeedback } from './read-feedback';

export interface TermRevision {
  plan: Plan;
  /** One line per change, for the person and the decision log. */
  changes: string[];
}

const showYears = (w: YearWindow): string => (w.from <= -9999 ? `before ${w.to + 1}` : w.to >= 9999 ? `after ${w.from - 1}` : w.from === w.to ? String(w.from) : `${w.from}–${w.to}`);

/** True when every word of the target is in the subtopic's own scope (its title and facet terms). */
function about(s: Subtopic, targetTerms: string[]): boolean {
  if (!targetTerms.length) return false;
  const own = new Set([s.title, ...s.facetTerms].flatMap((t) => analyzeTerms(t)));
  return targetTerms.every((t) => own.has(t));
}

/**
 * A plan revised by a person's words, with the words as scope: "leave out the 1800s" becomes a window of years every
 * search leaves out; "drop X" / "leave out X" removes the subtopics about X and puts X in the others' excluded terms;
 * "add X" adds a subtopic scoped to X. Siblings' exclusions are worked out again, as the planner does.
 */
export function reviseByTerms(plan: Plan, feedback: string, topic: string): TermRevision {
  const { requests, unread } = readFeedback(feedback);
  const changes: string[] = [];
  let subtopics = plan.subtopics.map((s) => ({ ...s }));
  const years = [...(plan.excludeYears ?? [])];
  const excluded: string[] = [];
  for (const r of requests) {
    if (r.kind === 'exclude-years') {
      if (!years.some((w) => w.from === r.years.from && w.to === r.years.to)) years.push(r.years);
      changes.push(`searches leave out ${showYears(r.years)} ("${r.said}")`);
      continue;
    }
    const terms = analyzeTerms(r.target);
    if (r.kind === 'exclude') {
      const gone = subtopics.filter((s) => about(s, terms));
      if (gone.length === subtopics.length) {
        changes.push(`kept every subtopic: "${r.said}" would leave none`);
        continue;
      }
      subtopics = subtopics.filter((s) => !gone.includes(s));
      excluded.push(clipText(r.target, 100));
      changes.push(gone.length ? `removed ${gone.map((s) => `"${s.title}"`).join(', ')}; searches stay out of "${r.target}"` : `searches stay out of "${r.target}" (no subtopic was about it)`);
      continue;
    }
    if (subtopics.some((s) => about(s, terms))) {
      changes.push(`"${r.target}" has a subtopic already`);
      continue;
    }
    const taken = new Set(subtopics.map((s) => s.id));
    const base = slugify(r.target, 40) || 'added';
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
    const title = clipText(facetTitle({ title: r.target }), 300);
    subtopics.push({ id, title, query: clipText(`${topic} ${r.target}`, 1000), facetTerms: [clipText(r.target, 100)], excludeTerms: [], origin: 'plan' });
    const i = excluded.findIndex((t) => analyzeTerms(t).join(' ') === terms.join(' '));
    if (i >= 0) excluded.splice(i, 1);
    changes.push(`added "${title}"`);
  }
  for (const said of unread) changes.push(`not understood, left as it was: "${said}"`);
  // Siblings stay out of each other's scopes; the person's exclusions hold for every subtopic but one about them.
  const revised = assignExclusions(subtopics).map((s) => {
    const own = new Set(s.facetTerms.flatMap((t) => analyzeTerms(t)));
    const extra = excluded.filter((t) => !analyzeTerms(t).every((x) => own.has(x)));
    return { ...s, excludeTerms: [...new Set([...s.excludeTerms, ...extra])].slice(0, 200) };
  });
  const { coverage: _stale, excludeYears: _years, ...rest } = plan;
  // A question answered in one search that now has several scopes is a breadth question.
  const classification = rest.classification === 'straightforward' && revised.length > 1 ? 'breadth' : rest.classification;
  return { plan: { ...rest, classification, subtopics: revised, ...(years.length ? { excludeYears: years } : {}) }, changes };
}
