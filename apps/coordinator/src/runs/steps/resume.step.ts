import { Injectable } from '@nestjs/common';
import type { CoordinatorStep, Run } from '@orrery/protocol';
import { LedgerStore } from '../../ledger/ledger.store';
import { applyMove } from '../apply-move';
import { RunStore } from '../run-store';
import { PendingDispatch } from './pending-dispatch';
import { PlanStep } from './plan.step';
import { RoundDecision } from './round-decision';
import { HandlesStep, type StepHandler } from './step-handler';
import { StepHold } from '../../queues/step-hold';

/** A person answered a run in needs_review: the policy takes the answer in place of the judge's. */
@Injectable()
@HandlesStep('resume')
export class ResumeStep implements StepHandler<'resume'> {
  constructor(
    private readonly store: RunStore,
    private readonly ledger: LedgerStore,
    private readonly decision: RoundDecision,
    private readonly pending: PendingDispatch,
    private readonly planStep: PlanStep,
    private readonly hold: StepHold,
  ) {}

  async handle(step: Extract<CoordinatorStep, { step: 'resume' }>): Promise<void> {
    await this.run(await this.store.require(step.runId), step.round, step.action);
  }

  async run(run: Run, round: number, action: 'continue' | 'stop'): Promise<void> {
    // Round 0: the answer to a plan review (a stop there ends the run when it is given).
    if (round === 0) return this.planStep.approve(run.id);
    const rec = run.rounds.find((r) => r.n === round);
    if (run.status !== 'needs_review' || !rec) return this.pending.dispatch(run);
    const figures = { evidence: run.evidence, coverage: rec.coverage, novelty: rec.novelty, thinSubtopicIds: [] };
    const { move, log, written } = await this.decision.decide(run, rec, figures, await this.ledger.findings(run.id), { by: 'person', action });
    const now = new Date().toISOString();
    let applied = false;
    const updated = await this.store.mutate(run.id, (r) => {
      applied = r.status === 'needs_review';
      if (!applied) return undefined;
      r.status = 'researching';
      delete r.review;
      delete r.reviewAnswer;
      applyMove(r, move, this.pending.taskEstimate(r), now);
      return r;
    }, log);
    if (applied) written();
    await this.hold.reached('review.answered', run.id);
    await this.pending.announce(updated);
    await this.pending.dispatch(updated);
  }
}
