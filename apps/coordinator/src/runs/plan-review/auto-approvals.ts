import { Injectable } from '@nestjs/common';
import type { CoordinatorStep } from '@orrery/protocol';
import { DecisionLogService } from '../../events/decision-log.service';
import { RunStore } from '../run-store';
import { PlanStep } from '../steps/plan.step';
import { HandlesStep, type StepHandler } from '../steps/step-handler';
import { revisionOf } from './auto-approve-schedule';

/** Approves a plan whose wait is over. */
@Injectable()
@HandlesStep('auto-approve')
export class AutoApprovals implements StepHandler<'auto-approve'> {
  constructor(
    private readonly store: RunStore,
    private readonly decisionLog: DecisionLogService,
    private readonly planStep: PlanStep,
  ) {}

  handle(step: Extract<CoordinatorStep, { step: 'auto-approve' }>): Promise<void> {
    return this.fire(step.runId, step.revision);
  }

  /**
   * The wait is over: the plan is approved as it stands unless a person answered or revised it first. Re-run after a
   * crash, it finds its own answer and carries the approval on (PlanStep.approve is idempotent).
   */
  async fire(runId: string, revision: number): Promise<void> {
    let applied = false;
    const run = await this.store.mutate(runId, (r) => {
      applied = r.status === 'needs_review' && r.proposedPlan !== undefined && !r.reviewAnswer && revisionOf(r) === revision;
      if (!applied) return undefined;
      r.reviewAnswer = { action: 'continue', at: new Date().toISOString() };
      delete r.autoApproveAt;
      return r;
    });
    if (applied) {
      await this.decisionLog.log(runId, `auto-approve:${revision}`, {
        decisionType: 'auto-approve',
        level: 'L3',
        confidence: 1,
        conclusion: `nobody answered the plan review within ${run.autoApproveAfterSeconds} s: the plan${revision ? ` (revision ${revision})` : ''} is approved as it stands`,
        signals: { revision, afterSeconds: run.autoApproveAfterSeconds ?? null, subtopics: run.proposedPlan!.subtopics.length },
      });
    }
    if (applied || (run.reviewAnswer?.action === 'continue' && revisionOf(run) === revision)) await this.planStep.approve(runId);
  }
}
