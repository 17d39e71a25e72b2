import { Inject, Injectable } from '@nestjs/common';
import { EngineFactory } from '@orrery/engines';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../../config/coordinator-config';
import { DecisionLogService } from '../../events/decision-log.service';
import { RunEventsService } from '../../events/run-events.service';
import { LedgerStore } from '../../ledger/ledger.store';
import { buildRoundTasks } from '../../planning/task-builder';
import { TaskDispatcher } from '../../queues/task-dispatcher';
import { RunStore } from '../run-store';
import { RunTransitions } from '../run-transitions';

/** Step 1: classify and decompose the topic, check the plan's coverage, dispatch round 1. */
@Injectable()
export class PlanStep {
  constructor(
    private readonly store: RunStore,
    private readonly engines: EngineFactory,
    private readonly decisions: DecisionLogService,
    private readonly events: RunEventsService,
    private readonly dispatcher: TaskDispatcher,
    private readonly ledger: LedgerStore,
    private readonly transitions: RunTransitions,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  async run(runId: string): Promise<void> {
    let run = await this.store.require(runId);
    if (run.status === 'cancelled' || run.status === 'done' || run.status === 'failed') return;
    if (!run.plan) {
      run = await this.transitions.status(runId, 'planning');
      const engine = this.engines.coordinator(run.engine);
      const planning = await engine.plan({
        runId,
        topic: run.topic,
        ...(run.corpus ? { corpus: run.corpus } : {}),
        maxSubtopics: Math.min(this.config.MAX_SUBTOPICS, run.budget.maxTasks),
        coverageCheck: run.coverageCheck,
      });
      for (const [i, d] of planning.decisions.entries()) await this.decisions.log(runId, `plan:${i}:${d.decisionType}`, d, run.stateVersion);
      const subtopics = planning.plan.subtopics.slice(0, run.budget.maxTasks);
      const now = new Date().toISOString();
      run = await this.store.mutate(runId, (r) => {
        if (r.plan || r.status === 'cancelled') return undefined;
        r.plan = { ...planning.plan, subtopics };
        r.status = 'researching';
        r.usage = addUsage(r.usage, planning.usage);
        r.rounds = [
          { n: 1, status: 'dispatched', taskIds: [], subtopicIds: subtopics.map((s) => s.id), completed: 0, failed: 0, newFindings: 0, newSources: 0, novelty: 0, coverage: 0, startedAt: now },
        ];
        return r;
      });
      if (run.status === 'cancelled') return;
      await this.events.append(runId, 'plan.ready', 'plan.ready', { plan: run.plan! });
      await this.events.append(runId, 'status:researching', 'run.status', { status: 'researching' });
    }
    if (run.status !== 'researching' || run.rounds.length !== 1) return;
    // Re-delivered after a crash, this re-dispatches the same round with the same job ids: a no-op.
    const tasks = buildRoundTasks(run, 1, await this.ledger.sourceIds(runId), this.limits());
    await this.transitions.recordDispatch(run, 1, tasks);
    await this.dispatcher.dispatchRound(runId, 1, tasks);
  }

  private limits() {
    return { findingsPerTask: this.config.FINDINGS_PER_TASK, maxCitations: this.config.MAX_CITATIONS };
  }
}

export function addUsage<T extends Record<string, number>>(a: T, b: T): T {
  const out = { ...a };
  for (const k of Object.keys(b) as (keyof T)[]) out[k] = ((a[k] ?? 0) + (b[k] ?? 0)) as T[keyof T];
  return out;
}
