import { Injectable } from '@nestjs/common';
import type { CoordinatorStep, Run } from '@orrery/protocol';
import { TaskDispatcher } from '../../queues/task-dispatcher';

/** One per proposed plan: a revised plan waits anew, and the older proposal's job finds it superseded. */
export const autoApproveJobId = (runId: string, revision: number) => `${runId}.autoapprove.${revision}`;

/** The revision a run's proposed plan is: how many rounds of feedback it has been through. */
export const revisionOf = (run: Pick<Run, 'planRevisions'>): number => run.planRevisions?.length ?? 0;

/**
 * A plan review that nobody answers is approved after the run's `autoApproveAfterSeconds`. The wait is a delayed job
 * on the coordinator queue: it lives in Redis, so a coordinator that dies while the run waits loses nothing, and any
 * replica runs it when it falls due.
 */
@Injectable()
export class AutoApproveSchedule {
  constructor(private readonly dispatcher: TaskDispatcher) {}

  /** The delayed approval of the plan the run proposes now, if the run asked for one. */
  async schedule(run: Run): Promise<void> {
    if (!run.autoApproveAfterSeconds || !run.autoApproveAt) return;
    const step: CoordinatorStep = { step: 'auto-approve', runId: run.id, revision: revisionOf(run) };
    const delay = Math.max(0, Date.parse(run.autoApproveAt) - Date.now());
    await this.dispatcher.coordinatorQueue.add('auto-approve', step, { jobId: autoApproveJobId(run.id, step.revision), delay, attempts: 5, backoff: { type: 'exponential', delay: 500 }, removeOnComplete: { age: 24 * 3600 }, removeOnFail: { age: 7 * 24 * 3600 } });
  }

  /** A person answered: the pending approval of this proposal is withdrawn (it would find the run answered anyway). */
  async withdraw(run: Run): Promise<void> {
    await this.dispatcher.withdraw('steps', [autoApproveJobId(run.id, revisionOf(run))]);
  }
}
