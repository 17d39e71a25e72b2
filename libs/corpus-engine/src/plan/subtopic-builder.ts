import type { Subtopic } from '@orrery/protocol';
import type { CorpusIndex } from '../index/corpus-index';
import { sameWordFamily, type Facet } from './facets';
import { rankForSubtopic } from '../search/passage-ranking';
import { slugify } from '@orrery/passages';
import { analyzeTerms } from '@orrery/language';
import type { TopicProfile } from '../profile/topic-profile';
import { clipText } from '@orrery/protocol';

/** How many passages a subtopic search is expected to return (the loop asks for 6 findings). */
export const EXPECTED_FINDINGS = 6;

export const OVERVIEW_ID = 'overview';

export function overviewSubtopic(topic: string): Subtopic {
  return { id: OVERVIEW_ID, title: 'Overview', query: clipText(topic, 1000), facetTerms: [], excludeTerms: [], origin: 'plan' };
}

/** A subtopic scoped to one facet; `taken` holds ids already used (kept unique). */
export function subtopicFromFacet(topic: string, facet: Facet, origin: Subtopic['origin'], taken: Set<string>, prefix = ''): Subtopic {
  const base = (prefix + (slugify(facet.label, 40) || 'facet')).slice(0, 50);
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  taken.add(id);
  return { id, title: clipText(facetTitle(facet), 300), query: clipText(`${topic} ${facet.label}`, 1000), facetTerms: [clipText(facet.label, 100)], excludeTerms: [], origin };
}

/**
 * A section title that is the facet itself ("Chinese immigration"), capitalized; a shouted one ("SCHOOLS") lowered
 * first; a word cased inside ("inHg", "iPhone") left as it is written.
 */
export function facetTitle(facet: Pick<Facet, 'title'>): string {
  const t = /[a-z]/.test(facet.title) || facet.title.toLowerCase() === facet.title.toUpperCase() ? facet.title : facet.title.toLowerCase();
  return /^\p{Ll}+\p{Lu}/u.test(t) ? t : t.charAt(0).toUpperCase() + t.slice(1);
}

/** Each scoped subtopic stays out of its siblings' scopes (the overview has no scope to keep). */
export function assignExclusions(subtopics: Subtopic[]): Subtopic[] {
  return subtopics.map((s) => {
    if (s.facetTerms.length === 0) return { ...s, excludeTerms: [] };
    const own = new Set(s.facetTerms.flatMap((t) => analyzeTerms(t)));
    const excludeTerms = subtopics
      .filter((o) => o.id !== s.id)
      .flatMap((o) => o.facetTerms)
      .filter((t) => !analyzeTerms(t).every((x) => own.has(x)))
      .slice(0, 200);
    return { ...s, excludeTerms: [...new Set(excludeTerms)] };
  });
}

/** The passages a subtopic's search is expected to return, simulated with the subagents' own ranking. */
export function expectedPassages(index: CorpusIndex, profile: TopicProfile, s: Subtopic, known?: ReadonlySet<string>, limit = EXPECTED_FINDINGS): string[] {
  return rankForSubtopic(index, profile, { query: s.query, include: s.facetTerms, exclude: s.excludeTerms, known, limit }).map((r) => r.id);
}

/** True when the facet's terms already fall within some subtopic's scope. */
export function facetCovered(facet: Facet, subtopics: readonly Subtopic[]): boolean {
  const scopes = subtopics.map((s) => new Set(s.facetTerms.flatMap((t) => analyzeTerms(t))));
  return scopes.some((scope) => facet.terms.every((t) => scope.has(t) || (facet.terms.length === 1 && [...scope].some((x) => sameWordFamily(x, t)))));
}
