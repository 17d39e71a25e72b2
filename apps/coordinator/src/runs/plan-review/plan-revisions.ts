import { BadRequestException, ConflictException, Inject, Injectable, ServiceUnavailableException } from '@nestjs/common';
import { clipText } from '@orrery/protocol';
import { EngineError } from '@orrery/engine';
import { EngineFactory } from '@orrery/engines';
import type { Run } from '@orrery/protocol';
import { chargeTokens } from '../../budget';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../../config/coordinator-config';
import { DecisionLogService } from '../../events/decision-log.service';
import { checkEditedPlan } from '../../planning/check-edited-plan';
import { RunStore } from '../run-store';
import { addUsage } from '../usage';
import { AutoApproveSchedule, revisionOf } from './auto-approve-schedule';

/**
 * A plan review answered in words: the engine revises the proposed plan by the feedback (Claude's lead with a model
 * call, the corpus engine with the feedback's terms as scope), the revision is checked as an edited plan is, and the
 * run goes on waiting with the revised plan, for as many rounds as the person wants.
 */
@Injectable()
export class PlanRevisions {
  constructor(
    private readonly store: RunStore,
    private readonly engines: EngineFactory,
    private readonly decisionLog: DecisionLogService,
    private readonly autoApprovals: AutoApproveSchedule,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  async revise(run: Run, feedback: string): Promise<Run> {
    const waiting = (r: Run) => r.status === 'needs_review' && r.proposedPlan !== undefined && !r.reviewAnswer;
    if (!waiting(run)) {
      if (run.status === 'needs_review' && !run.proposedPlan) throw new BadRequestException(`run ${run.id} waits for a judge review, not a plan review: only a plan is revised`);
      throw new ConflictException(run.reviewAnswer ? `run ${run.id} was answered already (${run.reviewAnswer.action})` : `run ${run.id} is ${run.status}, not waiting for plan review`);
    }
    const engine = this.engines.coordinator(run.engine);
    if (!engine.revisePlan) throw new BadRequestException(`the ${run.engine} engine revises no plan from words: send an edited plan with "action": "continue"`);
    const revision = revisionOf(run);
    let out;
    try {
      out = await engine.revisePlan({
        runId: run.id,
        topic: run.topic,
        ...(run.corpus ? { corpus: run.corpus } : {}),
        plan: run.proposedPlan!,
        feedback,
        maxSubtopics: Math.min(this.config.MAX_SUBTOPICS, run.budget.maxTasks),
      });
    } catch (err) {
      if (err instanceof EngineError) throw new ServiceUnavailableException(`the plan could not be revised (${err.message}); the proposed plan stands`);
      throw err;
    }
    const problems = checkEditedPlan(out.plan, {
      maxSubtopics: this.config.MAX_SUBTOPICS,
      account: run.budgetLedger,
      perTask: engine.taskEstimate,
      nowMs: Date.now(),
    });
    const now = new Date();
    let superseded = false;
    const updated = await this.store.mutate(run.id, (r) => {
      superseded = !waiting(r) || revisionOf(r) !== revision;
      if (superseded) return undefined;
      // What the revision spent is charged whether or not its plan is taken.
      r.usage = addUsage(r.usage, out.usage);
      r.budgetLedger = chargeTokens(r.budgetLedger, `plan-revision-${revision}`, out.usage).state;
      if (problems.length) return r;
      r.proposedPlan = out.plan;
      r.planRevisions = [...(r.planRevisions ?? []), { feedback: clipText(feedback, 2000), at: now.toISOString(), changes: out.changes.slice(0, 60).map((c) => clipText(c, 500)) }];
      if (r.autoApproveAfterSeconds) r.autoApproveAt = new Date(now.getTime() + r.autoApproveAfterSeconds * 1000).toISOString();
      return r;
    });
    if (superseded) throw new ConflictException(`run ${run.id}: the plan was answered or revised meanwhile; read it again`);
    for (const [i, d] of out.decisions.entries()) await this.decisionLog.log(run.id, `revise:${revision}:${i}:${d.decisionType}`, d, updated.stateVersion);
    if (problems.length) throw new BadRequestException(`the revised plan cannot be dispatched (${problems.join('; ')}); the proposed plan stands`);
    await this.decisionLog.log(run.id, `human:revise:${revision}`, {
      decisionType: 'human-decision',
      level: 'L3',
      confidence: 1,
      conclusion: clipText(`a person asked for a revised plan: "${feedback}"; ${out.changes.join('; ')}`, 2000),
      signals: { action: 'revise', revision: revision + 1, subtopics: out.plan.subtopics.length },
    });
    await this.autoApprovals.schedule(updated);
    return updated;
  }
}
