import type { Subtopic } from '@orrery/protocol';
import type { RefinementInput } from '@orrery/engine';
import type { CorpusIndex } from '../index/corpus-index';
import { type Era, missingEras } from '../index/eras';
import { companyFacets } from './company-facets';
import { mineFacets, type Facet } from './facets';
import { coveredShare, jaccard } from './overlap';
import { assignExclusions, expectedPassages, facetCovered, subtopicFromFacet } from './subtopic-builder';
import type { TopicProfile } from '../profile/topic-profile';
import { clipText } from '@orrery/protocol';

export interface RefinementOptions {
  /** A subtopic with fewer findings than this came back thin. */
  thinBelow: number;
  /**
   * Stop when less than this share of the scouting evidence is still missing from the ledger. Kept low:
   * the evidence is what may be cited, and an on-topic passage no finding reaches is often a section of
   * the topic nothing else covers (the facet mining and `minNewPassages` still decide whether a task is worth it).
   */
  minUncoveredShare: number;
  /** A new subtopic must be expected to bring at least this many new passages. */
  minNewPassages: number;
  maxOverlap: number;
}

export const DEFAULT_REFINEMENT: RefinementOptions = { thinBelow: 2, minUncoveredShare: 0.02, minNewPassages: 2, maxOverlap: 0.5 };

export interface Refinement {
  newSubtopics: Subtopic[];
  thinSubtopicIds: string[];
  conclusion: string;
  signals: Record<string, number | string | boolean | null | (string | number)[]>;
}

/**
 * After a round (mode 'replan': a pivot's new decomposition from the untouched facets and eras of the
 * scouting evidence, no thin retries, no facet of what was already found): which subtopics came back thin, which facets the findings reveal that no subtopic
 * covers, and which part of the scouting evidence the ledger still misses. New subtopics target those
 * gaps; nothing is returned when the remaining gap or the expected yield is too small (novelty stop).
 */
export function refinePlan(index: CorpusIndex, profile: TopicProfile, input: RefinementInput, options: RefinementOptions, mode: 'refine' | 'replan' = 'refine'): Refinement {
  const replan = mode === 'replan';
  const ledger = new Set(input.findings.map((f) => f.sourceId));
  const weights = new Map(profile.evidence.map((e) => [e.id, e.score]));
  const uncoveredShare = 1 - coveredShare(weights, ledger);
  const topicTerms = new Set(profile.terms);
  const subtopics = input.plan.subtopics;

  // Facets emerging from the findings that no subtopic covers yet (novelty of what came back).
  const findingPassages = [...ledger].map((id) => ({ id, score: profile.judge(id).score }));
  // A re-plan leaves the findings' own facets alone: that is the path the run has exhausted.
  const keep = companyFacets(index, input.topic);
  const only = keep ? { keep } : {};
  const emerging = replan ? [] : mineFacets(index, findingPassages, { topicTerms, minSupport: 2, maxShare: 0.5, limit: 30, ...only }).filter((f) => !facetCovered(f, subtopics));
  const novelty = findingPassages.length ? emerging.reduce((s, f) => s + f.passageIds.length, 0) / (findingPassages.length * Math.max(1, emerging.length)) : 0;

  // Facets of the scouting evidence the ledger still misses (the gap).
  const missing = profile.evidence.filter((e) => !ledger.has(e.id)).map((e) => ({ id: e.id, score: e.score }));
  const gaps = mineFacets(index, missing, { topicTerms, minSupport: !replan && missing.length >= 4 ? 2 : 1, maxShare: 0.9, limit: 30, ...only }).filter((f) => !facetCovered(f, subtopics));

  const baseSignals = {
    round: input.round,
    ledgerSources: ledger.size,
    evidencePassages: profile.evidence.length,
    uncoveredShare: round(uncoveredShare),
    coverage: round(1 - uncoveredShare),
    emergingFacets: emerging.slice(0, 8).map((f) => f.label),
    gapFacets: gaps.slice(0, 8).map((f) => f.label),
    novelty: round(novelty),
  };
  if (uncoveredShare < options.minUncoveredShare || input.maxNewTasks <= 0) {
    return {
      newSubtopics: [],
      thinSubtopicIds: [],
      conclusion: `stop: the ledger holds ${pct(1 - uncoveredShare)} of the scouting evidence; what is left is too little to research`,
      signals: { ...baseSignals, stop: true },
    };
  }

  // Thin subtopics get one more search, only in the round after their first and only if new passages exist.
  const thin: string[] = [];
  for (const s of replan ? [] : subtopics) {
    if (thin.length >= input.maxNewTasks) break;
    if ((input.evidence[s.id] ?? 0) >= options.thinBelow || input.round > 1) continue;
    const fresh = expectedPassages(index, profile, s, ledger).filter((id) => !ledger.has(id));
    if (fresh.length > 0) thin.push(s.id);
  }

  const taken = new Set(subtopics.map((s) => s.id));
  // A re-plan's subtopics are named apart from a refinement's, so a new decomposition shows as new ids.
  const prefix = `${replan ? 'p' : 'r'}${input.round + 1}-`;
  const chosen: { s: Subtopic; set: Set<string> }[] = [];
  const full = (): boolean => chosen.length + thin.length >= input.maxNewTasks;
  /** A candidate joins when it is expected to bring enough new passages and does not repeat one chosen. */
  const consider = (s: Subtopic): void => {
    if (taken.has(s.id)) return;
    const scoped = assignExclusions([...subtopics, ...chosen.map((c) => c.s), s]).find((x) => x.id === s.id)!;
    const fresh = expectedPassages(index, profile, scoped, ledger).filter((id) => !ledger.has(id));
    const set = new Set(fresh);
    if (fresh.length < options.minNewPassages || chosen.some((c) => jaccard(c.set, set) > options.maxOverlap)) return;
    taken.add(scoped.id);
    chosen.push({ s: scoped, set });
  };
  // A dated corpus: periods the evidence reaches and the ledger does not get a subtopic scoped by their years
  // (passage titles carry them), before the facets: time is the breadth of a question over two centuries.
  for (const era of missingEras(index, profile.evidence, ledger, options.minNewPassages)) {
    if (full()) break;
    consider(eraSubtopic(input.topic, era, prefix));
  }
  for (const f of dedupeFacets([...gaps, ...emerging])) {
    if (full()) break;
    consider(subtopicFromFacet(input.topic, f, 'refinement', new Set(taken), prefix));
  }
  const newSubtopics = chosen.map((c) => c.s);
  const expectedNew = new Set(chosen.flatMap((c) => [...c.set])).size;
  const conclusion =
    newSubtopics.length || thin.length
      ? `${replan ? 're-plan: ' : ''}${newSubtopics.length} gap-targeted subtopics (${newSubtopics.map((s) => s.title).join(', ') || 'none'}), ${thin.length} thin subtopics to retry; ${pct(uncoveredShare)} of the scouting evidence still missing`
      : `stop: no facet is expected to bring ${options.minNewPassages}+ new on-topic passages (novelty stop)`;
  return {
    newSubtopics,
    thinSubtopicIds: thin,
    conclusion: clipText(conclusion, 2000),
    signals: { ...baseSignals, mode, newSubtopics: newSubtopics.map((s) => s.id), thin, expectedNewPassages: expectedNew, stop: !newSubtopics.length && !thin.length },
  };
}

/** A subtopic for one era: its years are its scope terms, which match the dated titles of its documents. */
export function eraSubtopic(topic: string, era: Era, prefix = ''): Subtopic {
  const years = Array.from({ length: era.end - era.start + 1 }, (_, i) => String(era.start + i));
  return {
    id: `${prefix}era-${era.start}`,
    title: `${era.start}–${era.end}`,
    query: clipText(topic, 1000),
    facetTerms: years,
    excludeTerms: [],
    origin: 'refinement',
  };
}

function dedupeFacets(facets: Facet[]): Facet[] {
  const seen = new Set<string>();
  return facets.filter((f) => (seen.has(f.key) ? false : (seen.add(f.key), true)));
}

const pct = (x: number): string => `${Math.round(x * 100)}%`;
const round = (x: number): number => Math.round(x * 1000) / 1000;
