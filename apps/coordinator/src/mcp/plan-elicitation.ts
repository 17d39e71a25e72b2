import type { ElicitRequestFormParams, ServerContext } from '@modelcontextprotocol/server';
import { counted } from '@orrery/engine';
import { PlanFeedbackSchema, type Run } from '@orrery/protocol';
import { z } from 'zod';
import type { Principal } from '../auth/principal';
import type { RunsService } from '../runs/runs.service';

/** How a plan review asked of the person through the client ended. */
export type PlanReviewOutcome = { kind: 'approved' } | { kind: 'stopped' } | { kind: 'answered-elsewhere' } | { kind: 'left'; why: string };

/** The form: flat primitives only, as elicitation allows. */
export const PLAN_REVIEW_SCHEMA: ElicitRequestFormParams['requestedSchema'] = {
  type: 'object',
  properties: {
    decision: { type: 'string', title: 'Decision', description: 'approve dispatches this plan; revise changes it by your feedback; stop cancels the run', enum: ['approve', 'revise', 'stop'] },
    feedback: { type: 'string', title: 'What to change', description: 'for revise, in words: "leave out the 1800s; add tariffs"', maxLength: 2000 },
  },
  required: ['decision'],
};

const AnswerSchema = z.object({ decision: z.enum(['approve', 'revise', 'stop']), feedback: z.string().optional() });

/** The proposed plan as a person reads it in a form: its subtopics and queries, the years left out, what the last revision changed. */
export function planReviewMessage(run: Run, note?: string): string {
  const plan = run.proposedPlan!;
  const lines = [`Research "${run.topic}" (run ${run.id}) waits for you to approve its plan: ${counted(plan.subtopics.length, 'subtopic')}.`];
  plan.subtopics.forEach((s, i) => lines.push(`${i + 1}. ${s.title} (query: ${s.query})`));
  if (plan.excludeYears?.length) lines.push(`Years left out: ${plan.excludeYears.map((w) => (w.from === w.to ? `${w.from}` : `${w.from}–${w.to}`)).join(', ')}`);
  if (plan.authors?.length) lines.push(`Searched: only what ${plan.authors.join(' and ')} wrote or said.`);
  const revision = run.planRevisions?.at(-1);
  if (revision) lines.push(`Revised by "${revision.feedback}": ${revision.changes.join('; ') || 'no change'}`);
  if (note) lines.push(note);
  lines.push('Approve it, revise it (say what to change), or stop the run.');
  return lines.join('\n');
}

/**
 * Asks the person behind the client to approve, revise or stop a run's proposed plan, as many rounds as they revise.
 * Every answer goes through RunsService.decide, as over REST. A declined or dismissed form, or one unanswered by the
 * deadline, leaves the run in review for answer_review.
 */
export async function reviewPlanByElicitation(ctx: ServerContext, runs: RunsService, principal: Principal, paused: Run, deadlineMs: number): Promise<PlanReviewOutcome> {
  let run = paused;
  let note: string | undefined;
  for (;;) {
    const timeout = deadlineMs - Date.now();
    if (timeout <= 0) return { kind: 'left', why: 'the call reached its timeout while the plan waited for an answer' };
    const answer = await ctx.mcpReq
      .elicitInput({ mode: 'form', message: planReviewMessage(run, note), requestedSchema: PLAN_REVIEW_SCHEMA }, { timeout, signal: ctx.mcpReq.signal, relatedRequestId: ctx.mcpReq.id })
      .catch((err: Error) => ({ action: 'error' as const, message: err.message }));
    if (answer.action === 'error') return { kind: 'left', why: `the plan review could not be asked (${answer.message})` };
    if (answer.action !== 'accept') return { kind: 'left', why: `the plan review was ${answer.action === 'decline' ? 'declined' : 'dismissed'}` };
    const parsed = AnswerSchema.safeParse(answer.content ?? {});
    if (!parsed.success) {
      note = 'That answer was not understood: choose approve, revise or stop.';
      continue;
    }
    const { decision, feedback } = parsed.data;
    const words = decision === 'revise' ? PlanFeedbackSchema.safeParse(feedback ?? '') : undefined;
    if (words && !words.success) {
      note = `Revise takes feedback: ${words.error.issues[0]!.message}.`;
      continue;
    }
    try {
      if (words) {
        run = await runs.decide(principal, run.id, { action: 'revise', feedback: words.data! });
        note = undefined;
        continue;
      }
      await runs.decide(principal, run.id, { action: decision === 'approve' ? 'continue' : 'stop' });
      return { kind: decision === 'approve' ? 'approved' : 'stopped' };
    } catch (err) {
      const now = await runs.get(principal, run.id);
      if (now.status !== 'needs_review' || now.reviewAnswer) return { kind: 'answered-elsewhere' };
      // Refused (a revision whose scopes overlap, a plan over the budget): the plan stays as it was; say why, ask again.
      note = `That answer was refused: ${(err as Error).message}`;
    }
  }
}
