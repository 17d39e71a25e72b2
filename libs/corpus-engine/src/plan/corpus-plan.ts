import type { Plan, RequestClass, Subtopic } from '@orrery/protocol';
import { ZERO_USAGE, type EngineDecision, type PlanningOutput } from '@orrery/engine';
import { clipText } from '@orrery/protocol';
import type { CorpusIndex } from '../index/corpus-index';
import { companyFacets } from './company-facets';
import { mineFacets } from './facets';
import { jaccard } from './overlap';
import { checkPlanCoverage, DEFAULT_COVERAGE_CHECK, measurePlanCoverage } from './plan-coverage';
import { DEFAULT_REFINEMENT, type RefinementOptions } from './refinement';
import { assignExclusions, expectedPassages, overviewSubtopic, subtopicFromFacet } from './subtopic-builder';
import { DEFAULT_TOPIC_PROFILE, type TopicProfile, type TopicProfileOptions } from '../profile/topic-profile';

export interface CorpusCoordinatorOptions {
  coverageThreshold: number;
  maxOverlap: number;
  refinement: RefinementOptions;
  /** The topic profile (the precision guard); the subagents must be given the same. */
  profile: TopicProfileOptions;
}

export const DEFAULT_COORDINATOR_OPTIONS: CorpusCoordinatorOptions = {
  coverageThreshold: DEFAULT_COVERAGE_CHECK.threshold,
  maxOverlap: DEFAULT_COVERAGE_CHECK.maxOverlap,
  refinement: DEFAULT_REFINEMENT,
  profile: DEFAULT_TOPIC_PROFILE,
};

/** Subtopics the first decomposition takes from the scouting pass, by request class (before the coverage check). */
const INITIAL_FACETS = { straightforward: 0, breadth: 3, depth: 2 } as const;

/** What a facet plan needs of the request: plain data, so that it can be sent to the profile thread. */
export interface FacetPlanRequest {
  topic: string;
  classification: RequestClass;
  maxSubtopics: number;
  coverageCheck: boolean;
}

/**
 * A plan from the topic's scouting evidence: subtopics from the facets the first scouting pass shares, then the
 * coverage check against the wider evidence. Pure and synchronous, and seconds of work on a long topic: callers run
 * it in the profile thread (`preparePlan`).
 */
export function facetPlan(index: CorpusIndex, profile: TopicProfile, input: FacetPlanRequest, options: CorpusCoordinatorOptions): PlanningOutput {
  const cls = input.classification;
  const maxSubtopics = Math.max(1, Math.min(input.maxSubtopics, 40));
  const decisions: EngineDecision[] = [];

  // 1. Decompose from the first scouting pass: the facets its passages share.
  const firstPass = profile.firstPass.map((id) => ({ id, score: profile.judge(id).score })).filter((p) => profile.judge(p.id).onTopic);
  const topicTerms = new Set(profile.terms);
  const keep = companyFacets(index, input.topic);
  const scoutFacets = mineFacets(index, firstPass, { topicTerms, minSupport: firstPass.length >= 4 ? 2 : 1, maxShare: 0.75, limit: 30, ...(keep ? { keep } : {}) });
  let subtopics: Subtopic[] = [overviewSubtopic(input.topic)];
  const taken = new Set(subtopics.map((s) => s.id));
  const want = Math.min(INITIAL_FACETS[cls], maxSubtopics - 1);
  const chosenSets: Set<string>[] = [new Set(expectedPassages(index, profile, subtopics[0]!))];
  for (const f of scoutFacets) {
    if (subtopics.length - 1 >= want) break;
    const s = subtopicFromFacet(input.topic, f, 'plan', new Set(taken));
    const set = new Set(expectedPassages(index, profile, s));
    if (set.size === 0 || chosenSets.some((c) => jaccard(c, set) > options.maxOverlap)) continue;
    taken.add(s.id);
    subtopics.push(s);
    chosenSets.push(set);
  }
  subtopics = assignExclusions(subtopics);
  const plan: Plan = { classification: cls, subtopics };

  // 2. Coverage check against the wider scouting evidence.
  if (input.coverageCheck) {
    const limit = cls === 'straightforward' ? 1 : maxSubtopics;
    const check = checkPlanCoverage(index, profile, subtopics, { threshold: options.coverageThreshold, maxOverlap: options.maxOverlap, maxSubtopics: limit });
    plan.subtopics = check.subtopics;
    plan.coverage = check.coverage;
    decisions.push({
      decisionType: 'coverage-check',
      level: 'L0',
      confidence: check.coverage.passed ? 0.85 : 0.55,
      conclusion: check.coverage.passed
        ? `plan covers ${pct(check.coverage.share)} of the scouting evidence (threshold ${pct(check.coverage.threshold)}), max overlap ${check.coverage.maxOverlap}`
        : `plan covers ${pct(check.coverage.share)} of the scouting evidence, below ${pct(check.coverage.threshold)} or overlapping; uncovered: ${check.coverage.uncoveredFacets.slice(0, 5).join(', ') || 'none'}`,
      signals: {
        shareBefore: round(check.before.share),
        share: check.coverage.share,
        threshold: check.coverage.threshold,
        maxOverlapBefore: round(check.before.maxOverlap),
        maxOverlap: check.coverage.maxOverlap,
        subtopicsBefore: check.before.subtopics,
        subtopics: check.subtopics.length,
        added: check.added,
        merged: check.merged,
        evidencePassages: profile.evidence.length,
        uncoveredFacets: check.coverage.uncoveredFacets,
      },
    });
  }
  const measured = input.coverageCheck ? null : measurePlanCoverage(index, profile, plan.subtopics);
  decisions.unshift({
    decisionType: 'plan',
    level: 'L0',
    confidence: 0.85,
    conclusion: clipText(`${cls} request: ${plan.subtopics.length} subtopics: ${plan.subtopics.map((s) => s.title).join('; ')}`, 2000),
    signals: {
      classification: cls,
      topicTerms: profile.terms,
      scoutingPassages: firstPass.length,
      evidencePassages: profile.evidence.length,
      scoutFacets: scoutFacets.slice(0, 10).map((f) => f.label),
      subtopics: plan.subtopics.map((s) => s.id),
      coverageCheck: input.coverageCheck,
      ...(measured ? { uncheckedShare: round(measured.share) } : {}),
    },
  });
  return { plan, decisions, usage: ZERO_USAGE };
}

const pct = (x: number): string => `${Math.round(x * 100)}%`;
const round = (x: number): number => Math.round(x * 1000) / 1000;
