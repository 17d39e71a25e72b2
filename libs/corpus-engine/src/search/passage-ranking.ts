import type { YearWindow } from '@orrery/protocol';
import type { CorpusIndex } from '../index/corpus-index';
import { questionForm, analyzeTerms } from '@orrery/language';
import { documentStructure, spreadOverDocuments, type DocumentStructure } from '../index/documents';
import type { TopicProfile } from '../profile/topic-profile';

export interface SubtopicQuery {
  query: string;
  /** Scope terms (facet terms) of the subtopic. */
  include: readonly string[];
  /** Sibling scopes to stay out of. */
  exclude: readonly string[];
  /** Sources already in the ledger: ranked lower, not dropped. */
  known?: ReadonlySet<string>;
  limit: number;
  /** Years left out (a person's feedback on the plan): passages of documents dated in them are not ranked. */
  excludeYears?: readonly YearWindow[];
  /** The only authors whose passages are ranked (the ones the question names as speaking). */
  authors?: readonly string[];
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
/** Whether a passage's year falls in one of `windows`. */
export const inYears = (year: number | null, windows: readonly YearWindow[]): boolean => year !== null && windows.some((w) => year >= w.from && year <= w.to);
/** Whether a passage's author is one of `authors`. */
export const byAuthors = (author: string | null, authors: ReadonlySet<string>): boolean => author !== null && authors.has(author);

export function rankForSubtopic(index: CorpusIndex, profile: TopicProfile, q: SubtopicQuery): RankedPassage[] {
  const queryTerms = analyzeTerms(q.query);
  const includeTerms = [...new Set(q.include.flatMap((s) => analyzeTerms(s)))];
  const topicSet = new Set(profile.terms);
  const facetSet = new Set(includeTerms.filter((t) => !topicSet.has(t)));
  const excludeSets = q.exclude.map((s) => analyzeTerms(s).filter((t) => !topicSet.has(t) && !facetSet.has(t))).filter((ts) => ts.length > 0);
  const weights = new Map<string, number>();
  for (const t of queryTerms) weights.set(t, 1);
  for (const t of facetSet) weights.set(t, 2);
  const structure = documentStructure(index);
  const { hits, maxBm25 } = onTopicHits(index, profile, weights, facetSet, q.authors);
  const out: RankedPassage[] = [];
  for (const h of hits) {
    if (q.excludeYears?.length && inYears(structure.yearOf(h.id), q.excludeYears)) continue;
    // Better explained by a sibling: matches a sibling's scope and none of its own.
    if (facetSet.size > 0 && h.facetTerms.length === 0 && excludeSets.length > 0) {
      const terms = (h.terms ??= new Set(index.termsOf(h.id)));
      if (excludeSets.some((ts) => ts.every((t) => terms.has(t)))) continue;
    }
    const known = q.known?.has(h.id) ?? false;
    const score = (h.score / maxBm25) * (0.4 + 0.6 * h.verdict.score) * (known ? KNOWN_PENALTY : 1);
    out.push({ id: h.id, score, topicScore: h.verdict.score, topicTerms: h.verdict.topicTerms, facetTerms: h.facetTerms, known });
  }
  // Unknown sources first: a known one is returned only when nothing new is left.
  out.sort((a, b) => Number(a.known) - Number(b.known) || b.score - a.score || a.id.localeCompare(b.id));
  const intent = structure.dated ? questionForm(profile.topic).ordinal : null;
  if (intent) return inDateOrder(index, structure, out, profile.terms, intent, q.limit);
  if (!diverseTopic(structure, profile)) return out.slice(0, q.limit);
  return diversifyByDocument(structure, out, q.known ?? new Set(), q.limit);
}

interface OnTopicHit {
  id: string;
  score: number;
  verdict: { score: number; topicTerms: string[] };
  facetTerms: string[];
  /** The passage's terms, read when a sibling scope is checked. */
  terms?: Set<string>;
}

const hitCache = new WeakMap<CorpusIndex, WeakMap<TopicProfile, Map<string, { hits: OnTopicHit[]; maxBm25: number }>>>();
const HIT_CACHE_SIZE = 32;

/**
 * The BM25 hits of a subtopic's weighted terms that the precision guard keeps, memoized per (index, profile): the
 * plan's coverage check ranks each subtopic again for every candidate addition, with other exclusions only, and a
 * worker's later rounds rank a subtopic again with other known sources; neither changes these.
 */
function onTopicHits(index: CorpusIndex, profile: TopicProfile, weights: ReadonlyMap<string, number>, facetSet: ReadonlySet<string>, authors?: readonly string[]): { hits: OnTopicHit[]; maxBm25: number } {
  let byProfile = hitCache.get(index);
  if (!byProfile) hitCache.set(index, (byProfile = new WeakMap()));
  let byKey = byProfile.get(profile);
  if (!byKey) byProfile.set(profile, (byKey = new Map()));
  const key = JSON.stringify([[...weights.entries()], [...facetSet], authors ?? null]);
  const known = byKey.get(key);
  if (known) return known;
  // Searched among the authors' passages, so that the best of theirs are found however many of others' outrank them.
  const speakers = authors ? new Set(authors) : null;
  const structure = documentStructure(index);
  const found = index.searchTerms([...weights.keys()], { limit: 300, weights, ...(speakers ? { filter: (id: string) => byAuthors(structure.authorOf(id), speakers) } : {}) });
  const hits: OnTopicHit[] = [];
  for (const h of found) {
    const verdict = profile.judge(h.id);
    if (!verdict.onTopic) continue;
    const terms = new Set(index.termsOf(h.id));
    hits.push({ id: h.id, score: h.score, verdict, facetTerms: [...facetSet].filter((t) => terms.has(t)) });
  }
  const value = { hits, maxBm25: found[0]?.score ?? 1 };
  if (byKey.size >= HIT_CACHE_SIZE) byKey.delete(byKey.keys().next().value!);
  byKey.set(key, value);
  return value;
}

/** How much a passage's score keeps per passage of its document already chosen or in the ledger. */
export const SAME_DOCUMENT_FACTOR = 0.5;
/** Years within about this span of a chosen or known passage's year count as the same period. */
export const ERA_SPAN = 8;
/** How much of a passage's score a period already represented can take away. */
export const ERA_WEIGHT = 0.5;

const diverseCache = new WeakMap<TopicProfile, boolean>();

/** Document diversity applies when the topic's on-topic evidence is spread over many documents. */
export function diverseTopic(structure: DocumentStructure, profile: TopicProfile): boolean {
  let d = diverseCache.get(profile);
  if (d === undefined) {
    d = spreadOverDocuments(structure, profile.evidence.map((e) => e.id));
    diverseCache.set(profile, d);
  }
  return d;
}

/**
 * Greedy maximal-marginal-relevance selection over documents: each pick is the best score after a
 * penalty for every passage of the same document already picked or in the ledger, and, when documents
 * are dated, for a year close to the years already represented. Citations then come from many documents
 * across the collection's time span rather than from a few recent ones. Unknown sources still come first.
 */
export function diversifyByDocument(structure: DocumentStructure, ranked: readonly RankedPassage[], known: ReadonlySet<string>, limit: number): RankedPassage[] {
  const perDoc = new Map<string, number>();
  const years: number[] = [];
  for (const id of known) {
    const d = structure.docOf(id);
    if (d !== null) perDoc.set(d, (perDoc.get(d) ?? 0) + 1);
    const y = structure.yearOf(id);
    if (y !== null) years.push(y);
  }
  const pool = [...ranked];
  const out: RankedPassage[] = [];
  while (out.length < limit && pool.length > 0) {
    const knownPhase = !pool.some((r) => !r.known);
    let best = -1;
    let bestScore = -Infinity;
    pool.forEach((r, i) => {
      if (r.known !== knownPhase) return;
      const d = structure.docOf(r.id);
      const y = structure.yearOf(r.id);
      let s = r.score * SAME_DOCUMENT_FACTOR ** (d === null ? 0 : (perDoc.get(d) ?? 0));
      if (y !== null && years.length) s *= 1 - ERA_WEIGHT * Math.max(...years.map((x) => Math.exp(-Math.abs(x - y) / ERA_SPAN)));
      if (s > bestScore) {
        bestScore = s;
        best = i;
      }
    });
    const [r] = pool.splice(best, 1);
    out.push(r!);
    const d = structure.docOf(r!.id);
    if (d !== null) perDoc.set(d, (perDoc.get(d) ?? 0) + 1);
    const y = structure.yearOf(r!.id);
    if (y !== null) years.push(y);
  }
  return out;
}

/**
 * A "first" / "latest" question on a dated corpus: the passages that name the whole topic, earliest
 * (or latest) first, then the rest by score. The answer to "when first" is the oldest mention, not the
 * most relevant one.
 */
function inDateOrder(
  index: CorpusIndex,
  structure: DocumentStructure,
  ranked: readonly RankedPassage[],
  topicTerms: readonly string[],
  intent: 'earliest' | 'latest',
  limit: number,
): RankedPassage[] {
  const full = ranked.filter((r) => !r.known && structure.yearOf(r.id) !== null && namesTopic(index.termsOf(r.id), topicTerms));
  const sign = intent === 'earliest' ? 1 : -1;
  full.sort((a, b) => sign * (structure.yearOf(a.id)! - structure.yearOf(b.id)!) || a.id.localeCompare(b.id, 'en', { numeric: true }));
  const chosen = new Set(full.slice(0, limit).map((r) => r.id));
  return [...full.slice(0, limit), ...ranked.filter((r) => !chosen.has(r.id))].slice(0, limit);
}

/** The passage names the topic: all its terms, within a window of a few words (a phrase, not scattered words). */
export function namesTopic(terms: readonly string[], topicTerms: readonly string[]): boolean {
  if (topicTerms.length === 0) return false;
  const want = new Set(topicTerms);
  const window = topicTerms.length + 2;
  for (let i = 0; i < terms.length; i++) {
    if (!want.has(terms[i]!)) continue;
    const seen = new Set<string>();
    for (let j = i; j < Math.min(terms.length, i + window); j++) if (want.has(terms[j]!)) seen.add(terms[j]!);
    if (seen.size === want.size) return true;
  }
  return false;
}
