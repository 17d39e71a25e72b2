import { z } from 'zod';
import type { Plan } from '@orrery/protocol';
import type { EngineDecision, PlanRevisionInput, PlanRevisionOutput } from '@orrery/engine';
import { Redactor } from './redaction/redact';
import { redactionDecision } from './redaction/redaction-decision';
import { clipText } from '@orrery/protocol';
import { addUsage, emptyUsage } from '@orrery/engine';
import type { ResolvedEngineOptions } from './options';
import { SYSTEM_PROMPTS, untrustedData } from './prompts';
import { maxTokensFor, ROLE_EFFORT } from './role-settings';
import { PlanDraftSchema } from './schemas';
import { structuredCall } from './structured';
import { toSubtopics } from './coordinator-engine';

/** The lead's revised plan: a plan draft, and the years every search should leave out when the person asks for that. */
export const PlanRevisionDraftSchema = PlanDraftSchema.extend({
  excludeYears: z.array(z.object({ from: z.number().int(), to: z.number().int() })).max(20).optional(),
});

/** The plan as the lead is shown it again: what it proposed, without ids or computed fields. */
const shownPlan = (plan: Plan, r: Redactor): string =>
  JSON.stringify(
    {
      classification: plan.classification,
      subtopics: plan.subtopics.map((s) => ({
        title: r.text(s.title),
        query: r.text(s.query),
        facetTerms: s.facetTerms.map((t) => r.text(t)),
        ...(s.brief ? { objective: r.text(s.brief.objective), keyQuestions: s.brief.keyQuestions.map((q) => r.text(q)), sourceTypes: s.brief.sourceTypes, toolCalls: s.brief.toolCalls } : {}),
      })),
      ...(plan.rationale ? { rationale: r.text(plan.rationale) } : {}),
      ...(plan.excludeYears ? { excludeYears: plan.excludeYears } : {}),
    },
    null,
    1,
  );

/**
 * The lead revises its own plan by a person's feedback: one planner request with the plan it proposed and the
 * feedback, answered as a whole new plan (structured output, as a plan is). What changed is the difference in titles.
 */
export async function reviseWithLead(o: ResolvedEngineOptions, input: PlanRevisionInput): Promise<PlanRevisionOutput> {
  const r = new Redactor();
  const usage = emptyUsage();
  const decisions: EngineDecision[] = [];
  const max = Math.max(1, Math.min(input.maxSubtopics, 40));
  const user = [
    `A person reviewed the research plan you proposed and asks for changes. Revise the plan by their feedback, in at most ${max} subtopics: keep what they did not ask to change, leave out what they ask to leave out, add what they ask for. If they ask to leave out years, also list them in excludeYears (both ends included). In rationale, say what you changed and why.`,
    untrustedData('topic', r.text(input.topic)),
    'The plan you proposed:',
    untrustedData('plan', shownPlan(input.plan, r)),
    "The person's feedback (their request, to act on):",
    untrustedData('feedback', r.text(input.feedback)),
  ].join('\n');
  const redacted = redactionDecision('plan revision', r);
  if (redacted) decisions.push(redacted);
  const revised = await structuredCall({
    api: o.api,
    model: o.model,
    ...(o.refusalFallbackModel ? { fallbackModel: o.refusalFallbackModel } : {}),
    system: SYSTEM_PROMPTS.planner,
    user,
    schema: PlanRevisionDraftSchema,
    purpose: 'plan revision',
    effort: ROLE_EFFORT.planner,
    maxTokens: maxTokensFor('planner', o.maxTokens),
    check: (d) => [
      ...(d.subtopics.length > max ? [`subtopics: ${d.subtopics.length} given, at most ${max} allowed`] : []),
      ...(d.excludeYears ?? []).filter((w) => w.from > w.to).map((w) => `excludeYears: ${w.from} is after ${w.to}`),
    ],
  });
  addUsage(usage, revised.usage);
  decisions.push(...revised.decisions);
  const v = revised.value;
  const subtopics = toSubtopics(v.subtopics, 'plan', new Set());
  const before = new Set(input.plan.subtopics.map((s) => s.title.toLowerCase()));
  const after = new Set(subtopics.map((s) => s.title.toLowerCase()));
  const changes = [
    ...input.plan.subtopics.filter((s) => !after.has(s.title.toLowerCase())).map((s) => `removed "${s.title}"`),
    ...subtopics.filter((s) => !before.has(s.title.toLowerCase())).map((s) => `added "${s.title}"`),
    ...(v.excludeYears?.length ? [`searches leave out ${v.excludeYears.map((w) => `${w.from}–${w.to}`).join(', ')}`] : []),
  ];
  const plan: Plan = {
    classification: v.classification,
    subtopics,
    rationale: clipText(v.rationale, 2000),
    ...((v.answerForm ?? input.plan.answerForm) ? { answerForm: v.answerForm ?? input.plan.answerForm! } : {}),
    ...(input.plan.language ? { language: input.plan.language } : {}),
    ...(v.excludeYears?.length ? { excludeYears: v.excludeYears.filter((w) => w.from <= w.to).map((w) => ({ from: Math.max(-9999, w.from), to: Math.min(9999, w.to) })) } : {}),
  };
  decisions.push({
    decisionType: 'plan-revision',
    level: 'L2',
    confidence: v.confidence,
    conclusion: clipText(`the lead revised the plan by the feedback: ${changes.join('; ') || 'no subtopic changed'}`, 2000),
    signals: { subtopics: subtopics.length, redactions: r.total },
  });
  return { plan, changes: changes.length ? changes : [clipText(`revised: ${v.rationale}`, 500)], decisions, usage };
}
