import type { CorpusIndex } from './corpus-index';
import { analyzeTerms } from './text-analysis';
import type { TopicProfile } from './topic-profile';

export interface SubtopicQuery {
  query: string;
  /** Scope terms (facet terms) of the subtopic. */
  include: readonly string[];
  /** Sibling scopes to stay out of. */
  exclude: readonly string[];
  /** Sources already in the ledger: ranked lower, not dropped. */
  known?: ReadonlySet<string>;
  limit: number;
}

export interface RankedPassage {
  id: string;
  score: number;
  /** The precision guard's topic score for the passage. */
  topicScore: number;
  topicTerms: string[];
  facetTerms: string[];
  known: boolean;
}

const KNOWN_PENALTY = 0.35;

/**
 * Rank passages for one subtopic: BM25 on the query plus scope terms, then the precision guard (the
 * passage must be on the run's topic, by the topic profile), then the scope rule (a passage that
 * matches sibling scopes more than its own is left to the sibling). Known sources rank lower.
 */
export function rankForSubtopic(index: CorpusIndex, profile: TopicProfile, q: SubtopicQuery): RankedPassage[] {
  const queryTerms = analyzeTerms(q.query);
  const includeTerms = [...new Set(q.include.flatMap((s) => analyzeTerms(s)))];
  const topicSet = new Set(profile.terms);
  const facetSet = new Set(includeTerms.filter((t) => !topicSet.has(t)));
  const excludeSets = q.exclude.map((s) => analyzeTerms(s).filter((t) => !topicSet.has(t) && !facetSet.has(t))).filter((ts) => ts.length > 0);
  const weights = new Map<string, number>();
  for (const t of queryTerms) weights.set(t, 1);
  for (const t of facetSet) weights.set(t, 2);
  const hits = index.searchTerms([...weights.keys()], { limit: 300, weights });
  const maxBm25 = hits[0]?.score ?? 1;
  const out: RankedPassage[] = [];
  for (const h of hits) {
    const verdict = profile.judge(h.id);
    if (!verdict.onTopic) continue;
    const terms = new Set(index.termsOf(h.id));
    const facetTerms = [...facetSet].filter((t) => terms.has(t));
    const excludeHits = excludeSets.filter((ts) => ts.every((t) => terms.has(t))).length;
    // Better explained by a sibling: matches a sibling's scope and none of its own.
    if (facetSet.size > 0 && facetTerms.length === 0 && excludeHits > 0) continue;
    const known = q.known?.has(h.id) ?? false;
    const score = (h.score / maxBm25) * (0.4 + 0.6 * verdict.score) * (known ? KNOWN_PENALTY : 1);
    out.push({ id: h.id, score, topicScore: verdict.score, topicTerms: verdict.topicTerms, facetTerms, known });
  }
  // Unknown sources first: a known one is returned only when nothing new is left.
  return out.sort((a, b) => Number(a.known) - Number(b.known) || b.score - a.score || a.id.localeCompare(b.id)).slice(0, q.limit);
}
