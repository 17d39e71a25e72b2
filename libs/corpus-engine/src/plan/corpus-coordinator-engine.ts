import type { RoundForecast } from '@orrery/decisions';
import type { ReportShape, Subtopic } from '@orrery/protocol';
import { ZERO_USAGE, type CoordinatorEngine, type EngineDecision, type PlanningInput, type PlanningOutput, type PlanRevisionInput, type PlanRevisionOutput, type RefinementInput, type RefinementOutput } from '@orrery/engine';
import { askedAuthors } from './asked-authors';
import { askedYears, yearsOutside } from './asked-years';
import { reviseByTerms } from './revise-by-terms';
import type { CorpusRegistry } from '../index/corpus-registry';
import { type CorpusCoordinatorOptions, DEFAULT_COORDINATOR_OPTIONS } from './corpus-plan';
import { refinePlan } from './refinement';
import { OVERVIEW_ID, overviewSubtopic } from './subtopic-builder';
import { retrievalOf, unanswered } from '../search/answer-confidence';
import { evidenceGap } from './evidence-clusters';
import type { CorpusIndex } from '../index/corpus-index';
import { keptTopicProfile } from '../profile/kept-profile';
import { preparePlan } from '../profile/prepare-profile';
import type { TopicProfile } from '../profile/topic-profile';
import { clipText } from '@orrery/protocol';
import { reportShape } from '@orrery/language';
import { comparisonSides } from './comparison-sides';
import type { CorpusVocabulary } from '@orrery/passages';

export { type CorpusCoordinatorOptions, DEFAULT_COORDINATOR_OPTIONS };

/**
 * The hub side of the corpus engine: facet-driven decomposition from a scouting retrieval, a coverage
 * check against the wider scouting evidence, and gap-targeted refinement. Deterministic and offline.
 */
export class CorpusCoordinatorEngine implements CoordinatorEngine {
  readonly name = 'corpus' as const;
  readonly capabilities = { usesCorpus: true, findingsPerTask: 6 } as const;
  /** Offline: a task spends no model tokens. */
  readonly taskEstimate = { tokens: 0, costUsd: 0 };

  constructor(
    private readonly registry: CorpusRegistry,
    private readonly defaultCorpus = 'sotu',
    private readonly options: CorpusCoordinatorOptions = DEFAULT_COORDINATOR_OPTIONS,
  ) {}

  async plan(input: PlanningInput): Promise<PlanningOutput> {
    const { index, profile, vocabulary } = await this.profileOf(input);
    const cls = input.classification;
    // A question bounded in time ("since 1900") is searched in those years only.
    const asked = askedYears(input.topic);
    const years = asked ? { excludeYears: yearsOutside(asked) } : {};
    const shape = reportShape(input.topic);
    const comparative = this.comparativePlan(input, shape, index, vocabulary);
    if (comparative) return { ...comparative, plan: { ...comparative.plan, ...years } };
    // A question that names who speaks ("What did Lincoln say…") is searched in their documents only.
    const authors = askedAuthors(index, vocabulary, input.topic);
    const bounded = (out: PlanningOutput): PlanningOutput => ({ ...out, plan: { ...out.plan, ...years, ...(authors.length ? { authors } : {}) } });
    // A question the corpus does not answer: its overview finds the nearest passages, and facets of them name nothing.
    if (unanswered(retrievalOf(index, input.topic, shape.subject || input.topic))) {
      const decision: EngineDecision = { decisionType: 'plan', level: 'L0', confidence: 0.85, conclusion: clipText(`the corpus does not answer "${shape.subject || input.topic}": the overview only`, 2000), signals: { classification: cls, shape: shape.kind, subtopics: [OVERVIEW_ID] } };
      return bounded({ plan: { classification: cls, shape, subtopics: [overviewSubtopic(input.topic)] }, decisions: [decision], usage: ZERO_USAGE });
    }
    // Facet mining and the coverage check read thousands of passages' neighbours: off the event loop.
    const planned = await preparePlan(index, profile, { topic: input.topic, classification: cls, maxSubtopics: input.maxSubtopics, coverageCheck: input.coverageCheck }, this.options);
    return bounded({ ...planned, plan: { ...planned.plan, shape } });
  }

  /** The person's words as scope: years left out, subtopics dropped or added (see reviseByTerms). */
  async revisePlan(input: PlanRevisionInput): Promise<PlanRevisionOutput> {
    const { plan, changes } = reviseByTerms(input.plan, input.feedback, input.topic);
    const decision: EngineDecision = {
      decisionType: 'plan-revision',
      level: 'L0',
      confidence: 0.8,
      conclusion: clipText(`revised by feedback: ${changes.join('; ') || 'nothing to change'}`, 2000),
      signals: { subtopics: plan.subtopics.map((s) => s.id), excludeYears: (plan.excludeYears ?? []).map((w) => `${w.from}..${w.to}`) },
    };
    return { plan, changes, decisions: [decision], usage: ZERO_USAGE };
  }

  /**
   * A comparison whose sides the corpus tells apart: the overview, then one subtopic per side (its search
   * keeps to that side's passages), so that every side brings its own evidence, not only what the topic's
   * overall ranking happens to reach.
   */
  private comparativePlan(input: PlanningInput, shape: ReportShape, index: CorpusIndex, vocabulary: CorpusVocabulary): PlanningOutput | null {
    if (shape.kind !== 'comparative') return null;
    const sides = comparisonSides(index, vocabulary, shape.sides);
    if (!sides) return null;
    const query = clipText(shape.subject || input.topic, 1000);
    const subtopics: Subtopic[] = [
      overviewSubtopic(input.topic),
      ...sides.slice(0, Math.max(1, input.maxSubtopics - 1)).map(({ subtopicId, ...side }): Subtopic => ({ id: subtopicId, title: clipText(`${side.name} on ${shape.subject || 'the topic'}`, 300), query, facetTerms: [], excludeTerms: [], origin: 'plan', side })),
    ];
    const decision: EngineDecision = {
      decisionType: 'plan',
      level: 'L0',
      confidence: 0.85,
      conclusion: clipText(`comparative request: ${sides.map((s) => s.name).join(' vs ')} on ${shape.subject || input.topic}; one subtopic per side`, 2000),
      signals: { classification: input.classification, shape: shape.kind, sides: sides.map((s) => s.name), subject: shape.subject, subtopics: subtopics.map((s) => s.id) },
    };
    return { plan: { classification: input.classification, shape, subtopics }, decisions: [decision], usage: ZERO_USAGE };
  }

  /** The run's corpus index and the topic's profile on it (memoized per index). */
  private async profileOf(input: { topic: string; corpus?: string }): Promise<{ index: CorpusIndex; profile: TopicProfile; vocabulary: CorpusVocabulary }> {
    const { index, vocabulary, origin } = await this.registry.forTopic(input.corpus ?? this.defaultCorpus, input.topic);
    return { index, profile: await keptTopicProfile(index, origin, input.topic, this.options.profile), vocabulary };
  }

  async onTopicSources(input: { topic: string; corpus?: string; sourceIds: readonly string[] }): Promise<ReadonlySet<string>> {
    const { index, profile } = await this.profileOf(input);
    return new Set(input.sourceIds.filter((id) => index.get(id) !== undefined && profile.judge(id).onTopic));
  }

  async refine(input: RefinementInput): Promise<RefinementOutput> {
    return this.refined(input, 'refine');
  }

  /** A pivot: a new decomposition from the facets and eras of the scouting evidence the ledger has not touched. */
  async replan(input: RefinementInput): Promise<RefinementOutput> {
    return this.refined(input, 'replan');
  }

  async forecast(input: RefinementInput): Promise<RoundForecast> {
    const { index, profile } = await this.profileOf(input);
    const r = refinePlan(index, profile, input, this.options.refinement, 'refine');
    const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
    const gap = evidenceGap(index, profile.evidence.map((e) => e.id), new Set(input.findings.map((f) => f.sourceId)));
    return {
      gapTasks: r.newSubtopics.length + r.thinSubtopicIds.length,
      expectedNewPassages: num(r.signals['expectedNewPassages']),
      uncoveredShare: num(r.signals['uncoveredShare']),
      missingEvidence: gap.missingPassages,
      untouchedClusterShare: gap.clusters ? gap.untouchedClusters / gap.clusters : 0,
    };
  }

  private async refined(input: RefinementInput, mode: 'refine' | 'replan'): Promise<RefinementOutput> {
    const { index, profile, vocabulary } = await this.profileOf(input);
    // A comparison's evidence is its sides', and what a question the corpus does not answer misses is its subject:
    // neither lacks what a gap of the topic's wider profile would add.
    const shape = reportShape(input.topic);
    const settled =
      shape.kind === 'comparative' && comparisonSides(index, vocabulary, shape.sides)
        ? 'comparative request: each side has its own subtopic; no refinement'
        : unanswered(retrievalOf(index, input.topic, shape.subject || input.topic))
          ? 'the corpus does not answer the question: no refinement'
          : null;
    if (settled) {
      const decision: EngineDecision = { decisionType: mode === 'replan' ? 'replan' : 'refinement', level: 'L0', confidence: 0.85, conclusion: settled, signals: { shape: shape.kind } };
      return { newSubtopics: [], thinSubtopicIds: [], decisions: [decision], usage: ZERO_USAGE };
    }
    const r = refinePlan(index, profile, input, this.options.refinement, mode);
    const decision: EngineDecision = {
      decisionType: mode === 'replan' ? 'replan' : 'refinement',
      level: 'L0',
      confidence: r.newSubtopics.length || r.thinSubtopicIds.length ? 0.75 : 0.85,
      conclusion: r.conclusion,
      signals: r.signals,
    };
    return { newSubtopics: r.newSubtopics, thinSubtopicIds: r.thinSubtopicIds, decisions: [decision], usage: ZERO_USAGE };
  }
}
