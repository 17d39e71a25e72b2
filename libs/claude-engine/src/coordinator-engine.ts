import { ModelVerdictSchema } from '@orrery/decisions';
import type { Plan, PlanCoverage, Subtopic, TokenUsage } from '@orrery/protocol';
import type { CoordinatorCapabilities, CoordinatorEngine, EngineDecision, JudgeVerdictResult, ModelJudgeInput, ModelJudge, PlanningInput, PlanningOutput, PlanRevisionInput, PlanRevisionOutput, RefinementInput, RefinementOutput, TaskEstimate } from '@orrery/engine';
import { Redactor } from './redaction/redact';
import { redactionDecision } from './redaction/redaction-decision';
import { addUsage, emptyUsage } from '@orrery/engine';
import { isFallbackWorthy, StructuredOutputError } from './errors';
import { costOf } from './pricing';
import { resolveOptions, type AnthropicEngineOptions, type ResolvedEngineOptions } from './options';
import { SYSTEM_PROMPTS, untrustedData } from './prompts';
import { CoverageCritiqueSchema, PlanDraftSchema, RefinementDraftSchema, type SubtopicDraft } from './schemas';
import { JUDGE_ANSWER_TOKENS, maxTokensFor, ROLE_EFFORT } from './role-settings';
import { structuredCall } from './structured';
import { reviseWithLead } from './plan-reviser';
import { clipText } from '@orrery/protocol';

/** The share of a search task's tokens that are output (thinking, notes), for its dollar reservation. */
const TASK_OUTPUT_SHARE = 0.2;

/** Coverage check thresholds: share of facets covered, and the largest tolerated overlap between two subtopics. */
export const COVERAGE_THRESHOLD = 0.8;
export const MAX_OVERLAP = 0.5;

const isCoordinatorEngine = (e: unknown): e is CoordinatorEngine =>
  !!e && typeof (e as CoordinatorEngine).plan === 'function' && typeof (e as CoordinatorEngine).refine === 'function';

/** Tool calls a brief asks for when the lead names none. */
const DEFAULT_TOOL_CALLS = 10;

/** What makes two briefs the same, whatever their ids: their words, case and punctuation aside. */
export const briefKey = (s: Pick<SubtopicDraft, 'title' | 'query'> & { objective?: string }): string =>
  [s.title, s.query, s.objective ?? ''].map((x) => x.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim()).join('|');

export function slugify(title: string): string {
  const s = title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/g, '');
  return s || 'subtopic';
}

export function toSubtopics(drafts: SubtopicDraft[], origin: Subtopic['origin'], taken: Set<string>, siblings: Subtopic[] = []): Subtopic[] {
  const out: Subtopic[] = drafts.map((d) => {
    const base = slugify(d.title);
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
    taken.add(id);
    return {
      id,
      title: clipText(d.title, 300),
      query: clipText(d.query, 1000),
      facetTerms: d.facetTerms.map((t) => clipText(t, 100)).slice(0, 50),
      excludeTerms: d.excludeTerms.map((t) => t.slice(0, 100)),
      origin,
      ...(d.objective
        ? {
            brief: {
              objective: clipText(d.objective, 1000),
              keyQuestions: (d.keyQuestions ?? []).slice(0, 8).map((q) => clipText(q, 300)),
              sourceTypes: (d.sourceTypes ?? []).slice(0, 8).map((t) => clipText(t, 100)),
              toolCalls: d.toolCalls ?? DEFAULT_TOOL_CALLS,
            },
          }
        : {}),
    };
  });
  // Each subtopic stays out of its siblings' scopes.
  const all = [...siblings, ...out];
  for (const s of out) {
    const own = new Set(s.facetTerms.map((t) => t.toLowerCase()));
    const ex = new Set(s.excludeTerms);
    for (const o of all) if (o !== s) for (const t of o.facetTerms) if (!own.has(t.toLowerCase())) ex.add(t);
    s.excludeTerms = [...ex].slice(0, 200);
  }
  return out;
}

const l2 = (decisionType: string, confidence: number, conclusion: string, signals: EngineDecision['signals']): EngineDecision => ({
  decisionType,
  level: 'L2',
  confidence,
  conclusion: clipText(conclusion, 2000),
  signals,
});

/** How many inherited findings a follow-up's planner is shown (the first ones; the rest stay citable). */
const MAX_INHERITED_SHOWN = 60;

/** The hub's side of the Claude engine: plan, coverage critique, gap finding (L2), and the L2 judge verdict. */
export class AnthropicCoordinatorEngine implements CoordinatorEngine, ModelJudge {
  readonly name = 'anthropic' as const;
  readonly capabilities: CoordinatorCapabilities;
  private readonly o: ResolvedEngineOptions;
  private readonly fallback?: CoordinatorEngine;

  /**
   * What the hub reserves per search task before dispatch: the configured tokens, priced at the subagent model's input
   * and output prices as the server bills them (nothing on a local server), plus its web searches.
   */
  readonly taskEstimate: TaskEstimate;

  constructor(options: AnthropicEngineOptions) {
    this.o = resolveOptions(options);
    this.fallback = isCoordinatorEngine(options.fallback) ? options.fallback : undefined;
    // A researcher that reads its best pages whole verifies about 11 quotes a task (the 3-round run against the fake).
    this.capabilities = { judge: this, usesCorpus: true, leadWrites: true, findingsPerTask: 12, ...(this.fallback ? { fallback: this.fallback.name } : {}) };
    const tokens = this.o.taskTokenEstimate;
    const searches = this.o.webSearch.enabled ? (this.o.webSearch.maxUses ?? 5) : 0;
    this.taskEstimate = {
      tokens,
      // A fifth of a task's tokens are output (its thinking and notes), priced as such: reserving it all at the input
      // price would stop a thinking researcher at a fraction of its work.
      costUsd: costOf(this.o.api.billedPrices, this.o.subagentModel, {
        inputTokens: Math.round(tokens * (1 - TASK_OUTPUT_SHARE)),
        outputTokens: Math.round(tokens * TASK_OUTPUT_SHARE),
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        webSearchRequests: searches,
        webFetchRequests: 0,
      }),
    };
  }

  async plan(input: PlanningInput): Promise<PlanningOutput> {
    const r = new Redactor();
    const usage = emptyUsage();
    const decisions: EngineDecision[] = [];
    const topic = r.text(input.topic);
    const max = Math.max(1, Math.min(input.maxSubtopics, 40));
    const known = (input.inherited ?? []).slice(0, MAX_INHERITED_SHOWN).map((f) => `- ${clipText(r.text(f.claim), 300)} (${clipText(r.text(f.sourceTitle), 120)})`);
    // Everything the planning requests carry from the request is the topic (and a follow-up's inheritance): logged once, counts only.
    const redacted = redactionDecision('plan', r);
    if (redacted) decisions.push(redacted);
    try {
      const planned = await structuredCall({
        api: this.o.api,
        model: this.o.model,
        ...(this.o.refusalFallbackModel ? { fallbackModel: this.o.refusalFallbackModel } : {}),
        system: SYSTEM_PROMPTS.planner,
        user: [
          `Plan research on this topic, in at most ${max} subtopics.`,
          untrustedData('topic', topic),
          ...(input.advice
            ? [`Advice from rules that read the question's words (you decide): class ${input.advice.class} (confidence ${input.advice.confidence}), form ${input.advice.form}, language ${input.advice.language}.`]
            : []),
          ...(known.length
            ? [
                'This run follows up an earlier one. What it found is below: it is in this run\'s ledger and the writer can cite it without a search. Plan subtopics only for what it does not already answer; if it answers everything, plan one narrow subtopic that checks for what is new.',
                untrustedData('known findings', known.join('\n')),
              ]
            : []),
        ].join('\n'),
        schema: PlanDraftSchema,
        purpose: 'plan',
        effort: ROLE_EFFORT.planner,
        maxTokens: maxTokensFor('planner', this.o.maxTokens),
        check: (d) => (d.subtopics.length > max ? [`subtopics: ${d.subtopics.length} given, at most ${max} allowed`] : []),
      });
      addUsage(usage, planned.usage);
      decisions.push(...planned.decisions);
      const taken = new Set<string>();
      const subtopics = toSubtopics(planned.value.subtopics, 'plan', taken);
      decisions.push(
        l2('plan', planned.value.confidence, `classified as ${planned.value.classification}; ${subtopics.length} subtopics: ${subtopics.map((s) => s.title).join('; ')}`, {
          classification: planned.value.classification,
          subtopics: subtopics.length,
          redactions: r.total,
        }),
      );
      const v = planned.value;
      const plan: Plan = {
        classification: v.classification,
        subtopics,
        rationale: clipText(v.rationale, 2000),
        ...((v.answerForm ?? input.advice?.form) ? { answerForm: v.answerForm ?? input.advice!.form } : {}),
        ...(v.language && /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(v.language) ? { language: v.language } : input.advice && input.advice.language !== 'und' ? { language: input.advice.language } : {}),
      };
      if (!input.coverageCheck) return { plan, decisions, usage };

      try {
        const critique = await structuredCall({
          api: this.o.api,
          model: this.o.model,
          ...(this.o.refusalFallbackModel ? { fallbackModel: this.o.refusalFallbackModel } : {}),
          system: SYSTEM_PROMPTS['coverage-critic'],
          user: [
            'Check this research plan for coverage and overlap.',
            untrustedData('topic', topic),
            'Subtopics (id: title — facet terms):',
            ...subtopics.map((s) => `- ${s.id}: ${s.title} — ${s.facetTerms.join(', ')}`),
            `At most ${Math.max(0, max - subtopics.length)} subtopics may be added.`,
          ].join('\n'),
          schema: CoverageCritiqueSchema,
          purpose: 'coverage critique',
          effort: ROLE_EFFORT['coverage-critic'],
          maxTokens: maxTokensFor('coverage-critic', this.o.maxTokens),
        });
        addUsage(usage, critique.usage);
        decisions.push(...critique.decisions);
        const c = critique.value;
        const uncoveredFacets = c.facets.filter((f) => f.coveredBy.length === 0).map((f) => f.name);
        const share = c.facets.length ? (c.facets.length - uncoveredFacets.length) / c.facets.length : 1;
        const maxOverlap = c.overlaps.reduce((m, o) => Math.max(m, o.share), 0);
        const passed = share >= COVERAGE_THRESHOLD && maxOverlap <= MAX_OVERLAP;
        const added = passed ? [] : toSubtopics(c.missing.slice(0, Math.max(0, max - subtopics.length)), 'coverage-check', taken, subtopics);
        plan.subtopics.push(...added);
        const coverage: PlanCoverage = { share, threshold: COVERAGE_THRESHOLD, maxOverlap, uncoveredFacets, passed };
        plan.coverage = coverage;
        decisions.push(
          l2(
            'coverage-check',
            c.confidence,
            passed
              ? `plan covers ${Math.round(share * 100)}% of ${c.facets.length} facets, max overlap ${maxOverlap.toFixed(2)}`
              : `plan covers ${Math.round(share * 100)}% of facets (uncovered: ${uncoveredFacets.join(', ') || 'none'}), max overlap ${maxOverlap.toFixed(2)}; added ${added.length} subtopics`,
            { share, maxOverlap, uncoveredFacets, added: added.length, passed },
          ),
        );
      } catch (err) {
        if (!isFallbackWorthy(err)) throw err;
        if (err instanceof StructuredOutputError) {
          addUsage(usage, err.usage);
          decisions.push(...err.decisions);
        }
        // A critique that failed says nothing against the plan: keep it, unchecked, rather than re-plan elsewhere.
        decisions.push(l2('coverage-check-skipped', 1, `coverage critique: ${err.message}; keeping the plan without the L2 coverage check`, {}));
      }
      return { plan, decisions, usage };
    } catch (err) {
      if (!isFallbackWorthy(err)) throw err;
      if (err instanceof StructuredOutputError) {
        addUsage(usage, err.usage);
        decisions.push(...err.decisions);
      }
      return this.planFallback(input, usage, decisions, err.message);
    }
  }

  /** The lead revises its plan by a person's feedback (plan review). */
  async revisePlan(input: PlanRevisionInput): Promise<PlanRevisionOutput> {
    return reviseWithLead(this.o, input);
  }

  async refine(input: RefinementInput): Promise<RefinementOutput> {
    return this.gaps(input, 'refine');
  }

  /** A pivot: a re-plan prompt with what was found and what failed; only new subtopics come back. */
  async replan(input: RefinementInput): Promise<RefinementOutput> {
    return this.gaps(input, 'replan');
  }

  private async gaps(input: RefinementInput, mode: 'refine' | 'replan'): Promise<RefinementOutput> {
    const replan = mode === 'replan';
    const r = new Redactor();
    const usage = emptyUsage();
    const decisions: EngineDecision[] = [];
    const known = new Set(input.plan.subtopics.map((s) => s.id));
    const sample = input.plan.subtopics
      .map((s) => {
        const fs = input.findings.filter((f) => f.subtopicId === s.id).slice(0, 8);
        return `## ${s.id}: ${r.text(s.title)} (${input.evidence[s.id] ?? 0} findings)\n${fs.map((f) => `- ${clipText(r.text(f.claim), 400)}`).join('\n')}`;
      })
      .join('\n');
    const topic = r.text(input.topic);
    const failed = input.plan.subtopics.filter((s) => (input.evidence[s.id] ?? 0) === 0).map((s) => `- ${s.id}: ${r.text(s.title)}`);
    const ask = replan
      ? [
          `Round ${input.round} just completed, and the run pivots: the plan below is exhausted. Re-plan: propose at most ${input.maxNewTasks} new subtopics that approach the topic from angles the plan has not tried. Do not repeat or rephrase its subtopics; leave thinSubtopicIds empty.`,
          untrustedData('topic', topic),
          'What was found, per subtopic (claims are from untrusted sources):',
          untrustedData('evidence', sample),
          `What failed (subtopics that found nothing):\n${failed.join('\n') || '- none'}`,
        ]
      : [
          `Round ${input.round} just completed. Propose at most ${input.maxNewTasks} tasks in all (new subtopics plus thin subtopic ids).`,
          untrustedData('topic', topic),
          'Plan and evidence so far (claims are from untrusted sources):',
          untrustedData('evidence', sample),
        ];
    const redacted = redactionDecision(`refinement round ${input.round}`, r);
    if (redacted) decisions.push(redacted);
    try {
      const res = await structuredCall({
        api: this.o.api,
        model: this.o.model,
        ...(this.o.refusalFallbackModel ? { fallbackModel: this.o.refusalFallbackModel } : {}),
        system: SYSTEM_PROMPTS['gap-finder'],
        user: ask.join('\n'),
        schema: RefinementDraftSchema,
        purpose: `${replan ? 're-plan' : 'refinement'} (round ${input.round})`,
        effort: ROLE_EFFORT['gap-finder'],
        maxTokens: maxTokensFor('gap-finder', this.o.maxTokens),
        check: (d) => d.thinSubtopicIds.filter((id) => !known.has(id)).map((id) => `thinSubtopicIds: "${id}" is not a subtopic id of the plan`),
        acceptWithIssues: true,
      });
      addUsage(usage, res.usage);
      decisions.push(...res.decisions);
      const max = Math.max(0, input.maxNewTasks);
      // Briefs are the same when their words are, whatever id they would get: one the plan has is not sent again.
      const seen = new Set(input.plan.subtopics.map((s) => briefKey({ ...s, ...(s.brief ? { objective: s.brief.objective } : {}) })));
      const fresh = res.value.newSubtopics.filter((d) => !seen.has(briefKey(d)) && seen.add(briefKey(d)));
      const repeated = res.value.newSubtopics.length - fresh.length;
      if (repeated > 0) {
        decisions.push({ decisionType: 'brief-deduplicated', level: 'L0', confidence: 1, conclusion: `round ${input.round}: ${repeated} proposed briefs repeat ones already sent; dropped`, signals: { repeated } });
      }
      const newSubtopics = toSubtopics(fresh.slice(0, max), 'refinement', new Set(known), input.plan.subtopics);
      const thinSubtopicIds = replan ? [] : [...new Set(res.value.thinSubtopicIds.filter((id) => known.has(id)))].slice(0, Math.max(0, max - newSubtopics.length));
      decisions.push(
        l2(replan ? 'replan' : 'refine', res.value.confidence, `round ${input.round}: ${replan ? 're-plan, ' : ''}${newSubtopics.length} new subtopics, ${thinSubtopicIds.length} thin; ${res.value.reason}`, {
          round: input.round,
          newSubtopics: newSubtopics.length,
          thin: thinSubtopicIds,
        }),
      );
      return { newSubtopics, thinSubtopicIds, decisions, usage };
    } catch (err) {
      if (!isFallbackWorthy(err)) throw err;
      if (err instanceof StructuredOutputError) {
        addUsage(usage, err.usage);
        decisions.push(...err.decisions);
      }
      if (!this.fallbackFor(input.corpus)) {
        throw new Error(`Anthropic engine, refinement round ${input.round}: ${err.message}; ${this.noFallback(input.corpus)}`, { cause: err });
      }
      decisions.push(this.fallbackDecision(`refinement round ${input.round}`, err.message));
      const fb = replan ? await this.fallback!.replan(input) : await this.fallback!.refine(input);
      return { ...fb, decisions: [...decisions, ...fb.decisions], usage: addUsage(usage, fb.usage) };
    }
  }

  /**
   * The L2 judge: continue, stop or pivot, with a calibrated confidence. Throws when the model's verdict fails
   * validation twice (there is no engine to fall back to: the judge treats a failed or timed-out verdict as continue).
   */
  async judgeVerdict(input: ModelJudgeInput): Promise<JudgeVerdictResult> {
    const r = new Redactor();
    const h = input.signalHistory;
    const user = [
      untrustedData('goal', r.text(input.goal)),
      `Round just completed: ${input.round}`,
      `Last actions:\n${input.lastActions.map((a) => `- ${r.text(a)}`).join('\n') || '- (none)'}`,
      yieldLine(input.yield),
      `State: ${r.text(input.stateSummary)}`,
      `Signal history: ${h.lastNonContinue ? `last ${h.lastNonContinue.signal} ${h.lastNonContinue.roundsAgo} rounds ago` : 'no stop or pivot so far'}; ${h.pivots} pivots in all.`,
    ].join('\n');
    try {
      const res = await structuredCall({
        api: this.o.api,
        model: this.o.judgeModel,
        system: SYSTEM_PROMPTS.judge,
        user,
        schema: ModelVerdictSchema,
        purpose: 'judge verdict',
        effort: ROLE_EFFORT.judge,
        maxTokens: maxTokensFor('judge', JUDGE_ANSWER_TOKENS),
        signal: input.abortSignal,
      });
      return { ...res.value, usage: res.usage, raw: res.raw };
    } catch (err) {
      if (err instanceof StructuredOutputError) throw new Error(`Anthropic judge: ${err.message}; treat as no verdict`, { cause: err });
      throw err;
    }
  }

  private fallbackDecision(step: string, why: string): EngineDecision {
    return l2('fallback', 1, `${step}: ${why}; ${this.fallback ? `fell back to the ${this.fallback.name} engine` : 'no fallback engine configured'}`, {
      step,
      fallbackEngine: this.fallback?.name ?? null,
    });
  }

  /**
   * The corpus engine answers for Claude only on the run's own corpus: a run that named none (a web run) has no
   * corpus to plan from, and another corpus's plan would be about something else.
   */
  private fallbackFor(corpus: string | undefined): CoordinatorEngine | undefined {
    return corpus !== undefined ? this.fallback : undefined;
  }

  private noFallback(corpus: string | undefined): string {
    return this.fallback && corpus === undefined ? 'the run has no corpus to fall back to' : 'no fallback engine is configured';
  }

  private async planFallback(input: PlanningInput, usage: TokenUsage, decisions: EngineDecision[], why: string): Promise<PlanningOutput> {
    const fallback = this.fallbackFor(input.corpus);
    if (!fallback) throw new Error(`Anthropic engine, plan: ${why}; ${this.noFallback(input.corpus)}`);
    decisions.push(this.fallbackDecision('plan', why));
    const fb = await fallback.plan(input);
    return { plan: fb.plan, decisions: [...decisions, ...fb.decisions], usage: addUsage(usage, fb.usage) };
  }
}

/** The judge prompt's yield line: a round's findings and sources, or a step's actions that brought new information. */
function yieldLine(y: ModelJudgeInput['yield']): string {
  if ('actions' in y) return `Yield of the recent steps: ${y.actionsWithNewInformation} of the last ${y.actions} actions brought new information; ${y.idleSteps} steps in a row brought nothing new`;
  return `Yield of the last round: ${y.newFindings} new findings, ${y.newSources} new sources${y.novelty !== undefined ? `, novelty ${y.novelty.toFixed(2)}` : ''}${y.coverage !== undefined ? `, coverage ${y.coverage.toFixed(2)}` : ''}`;
}
