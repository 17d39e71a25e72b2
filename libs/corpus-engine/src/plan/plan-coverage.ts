import type { PlanCoverage, Subtopic } from '@orrery/protocol';
import type { CorpusIndex } from '../index/corpus-index';
import { mineFacets, type Facet } from './facets';
import { coveredShare, jaccard, maxPairwiseOverlap } from './overlap';
import { assignExclusions, expectedPassages, subtopicFromFacet } from './subtopic-builder';
import type { TopicProfile } from '../profile/topic-profile';

export interface CoverageCheckOptions {
  /** Share of the scouting evidence's relevance mass the plan must reach. */
  threshold: number;
  /** Two subtopics whose expected passages overlap more than this are merged. */
  maxOverlap: number;
  maxSubtopics: number;
}

export const DEFAULT_COVERAGE_CHECK: Omit<CoverageCheckOptions, 'maxSubtopics'> = { threshold: 0.8, maxOverlap: 0.5 };

export interface CoverageMeasure {
  share: number;
  maxOverlap: number;
  overlapPair: [string, string] | null;
  expected: Map<string, Set<string>>;
  uncovered: { id: string; score: number }[];
}

/** Share of the scouting evidence the subtopics' expected passages reach, and their max pairwise overlap. */
export function measurePlanCoverage(index: CorpusIndex, profile: TopicProfile, subtopics: readonly Subtopic[]): CoverageMeasure {
  const expected = new Map(subtopics.map((s) => [s.id, new Set(expectedPassages(index, profile, s))]));
  const covered = new Set([...expected.values()].flatMap((s) => [...s]));
  // Dampened relevance mass: a dominant facet's many strong passages must not hide a missing facet.
  const weights = new Map(profile.evidence.map((e) => [e.id, Math.sqrt(e.score)]));
  const sets = subtopics.map((s) => expected.get(s.id)!);
  const overlap = maxPairwiseOverlap(sets);
  return {
    share: coveredShare(weights, covered),
    maxOverlap: overlap.value,
    overlapPair: overlap.pair ? [subtopics[overlap.pair[0]]!.id, subtopics[overlap.pair[1]]!.id] : null,
    expected,
    uncovered: profile.evidence.filter((e) => !covered.has(e.id)).map((e) => ({ id: e.id, score: e.score })),
  };
}

export interface CoverageCheckResult {
  subtopics: Subtopic[];
  coverage: PlanCoverage;
  before: { share: number; maxOverlap: number; subtopics: number };
  added: string[];
  merged: string[];
}

/**
 * The plan's coverage check: while the subtopics reach less than `threshold` of the scouting evidence,
 * mine facets from the evidence they miss and add the one that reaches the most uncovered mass; merge
 * subtopics whose expected passages overlap too much. Returns the figures for the plan and the log.
 */
export function checkPlanCoverage(index: CorpusIndex, profile: TopicProfile, initial: Subtopic[], options: CoverageCheckOptions): CoverageCheckResult {
  let subtopics = assignExclusions(initial);
  let m = measurePlanCoverage(index, profile, subtopics);
  const before = { share: m.share, maxOverlap: m.maxOverlap, subtopics: subtopics.length };
  const taken = new Set(subtopics.map((s) => s.id));
  const added: string[] = [];
  const merged: string[] = [];
  const topicTerms = new Set(profile.terms);
  const rejected = new Set<string>();

  for (let guard = 0; guard < 3 * options.maxSubtopics; guard++) {
    // Merge the most overlapping pair first: two subtopics that would return the same passages are one scope.
    if (m.maxOverlap > options.maxOverlap && m.overlapPair) {
      const [keepId, dropId] = m.overlapPair;
      const keep = subtopics.find((s) => s.id === keepId)!;
      const drop = subtopics.find((s) => s.id === dropId)!;
      const facetTerms = [...new Set([...keep.facetTerms, ...drop.facetTerms])].slice(0, 50);
      subtopics = assignExclusions(subtopics.filter((s) => s.id !== dropId).map((s) => (s.id === keepId ? { ...s, facetTerms } : s)));
      merged.push(`${dropId}->${keepId}`);
      m = measurePlanCoverage(index, profile, subtopics);
      continue;
    }
    if (m.share >= options.threshold || subtopics.length >= options.maxSubtopics || m.uncovered.length === 0) break;
    const facets = mineFacets(index, m.uncovered, { topicTerms, minSupport: m.uncovered.length >= 4 ? 2 : 1, maxShare: 0.9, limit: 40 }).filter(
      (f) => !rejected.has(f.key),
    );
    const best = bestAddition(index, profile, subtopics, m, facets, options, taken);
    if (!best) break;
    subtopics = best.subtopics;
    added.push(best.id);
    m = best.measure;
  }

  const uncoveredFacets = mineFacets(index, m.uncovered, { topicTerms, minSupport: 1, maxShare: 1, limit: 8 }).map((f) => f.label);
  return {
    subtopics,
    coverage: {
      share: round(m.share),
      threshold: options.threshold,
      maxOverlap: round(m.maxOverlap),
      uncoveredFacets,
      passed: m.share >= options.threshold && m.maxOverlap <= options.maxOverlap,
    },
    before,
    added,
    merged,
  };

  function bestAddition(
    idx: CorpusIndex,
    prof: TopicProfile,
    current: Subtopic[],
    measure: CoverageMeasure,
    facets: Facet[],
    opts: CoverageCheckOptions,
    ids: Set<string>,
  ): { subtopics: Subtopic[]; measure: CoverageMeasure; id: string } | null {
    const uncoveredWeight = new Map(measure.uncovered.map((u) => [u.id, u.score]));
    const ranked = facets
      .map((f) => ({ f, gain: f.passageIds.reduce((s, id) => s + (uncoveredWeight.get(id) ?? 0), 0) }))
      .filter((x) => x.gain > 0)
      .sort((a, b) => b.gain - a.gain || a.f.key.localeCompare(b.f.key))
      .slice(0, 6);
    let best: { subtopics: Subtopic[]; measure: CoverageMeasure; id: string; gain: number } | null = null;
    for (const { f } of ranked) {
      const candidateIds = new Set(ids);
      const s = subtopicFromFacet(prof.topic, f, 'coverage-check', candidateIds);
      const next = assignExclusions([...current, s]);
      const nm = measurePlanCoverage(idx, prof, next);
      const mine = nm.expected.get(s.id)!;
      const tooClose = [...nm.expected.entries()].some(([id, set]) => id !== s.id && jaccard(set, mine) > opts.maxOverlap);
      const gain = nm.share - measure.share;
      if (tooClose || gain <= 0) {
        rejected.add(f.key);
        continue;
      }
      if (!best || gain > best.gain) best = { subtopics: next, measure: nm, id: s.id, gain };
    }
    if (best) ids.add(best.id);
    return best;
  }
}

const round = (x: number): number => Math.round(x * 1000) / 1000;
