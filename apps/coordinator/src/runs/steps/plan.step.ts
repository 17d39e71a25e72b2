import { Inject, Injectable } from '@nestjs/common';
import { adviseAnswer, classifyRequest, INHERITED_COVER_MIN, inheritedBearing } from '@orrery/language';
import { clipText } from '@orrery/protocol';
import { EngineFactory } from '@orrery/engines';
import { emptyUsage, type InheritedFinding } from '@orrery/engine';
import type { CoordinatorStep, Plan, Run, Subtopic } from '@orrery/protocol';
import { chargeTokens } from '../../budget';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../../config/coordinator-config';
import { effortFor } from '../../effort';
import { DecisionLogService } from '../../events/decision-log.service';
import { RunEventsService } from '../../events/run-events.service';
import { LedgerStore } from '../../ledger/ledger.store';
import { planClass } from '../../planning/plan-class';
import { applyMove } from '../apply-move';
import { openRound } from '../round-record';
import { RunStore } from '../run-store';
import { RunTransitions } from '../run-transitions';
import { addUsage, inPhase } from '../usage';
import { PendingDispatch } from './pending-dispatch';
import { HandlesStep, type StepHandler } from './step-handler';
import { StepHold } from '../../queues/step-hold';
import { AutoApproveSchedule } from '../plan-review/auto-approve-schedule';

/** The subtopic a follow-up's inherited findings go under when they bear on its question but on no planned subtopic. */
const INHERITED_SUBTOPIC = 'inherited';

/** Step 1: classify the request and set its effort, decompose the topic, check the plan's coverage, dispatch round 1. */
@Injectable()
@HandlesStep('plan')
export class PlanStep implements StepHandler<'plan'> {
  constructor(
    private readonly store: RunStore,
    private readonly engines: EngineFactory,
    private readonly decisions: DecisionLogService,
    private readonly events: RunEventsService,
    private readonly transitions: RunTransitions,
    private readonly pending: PendingDispatch,
    private readonly ledger: LedgerStore,
    private readonly hold: StepHold,
    private readonly autoApprove: AutoApproveSchedule,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  handle(step: Extract<CoordinatorStep, { step: 'plan' }>): Promise<void> {
    return this.run(step.runId);
  }

  async run(runId: string): Promise<void> {
    let run = await this.store.require(runId);
    if (run.status === 'cancelled' || run.status === 'done' || run.status === 'failed') return;
    // Paused for plan review: the approval's resume step carries on (`approve`).
    if (run.status === 'needs_review') return;
    if (!run.plan) {
      run = await this.transitions.status(runId, 'planning');
      await this.hold.reached('plan.started', runId);
      const { plan, usage } = await this.makePlan(run);
      await this.hold.reached('plan.made', runId);
      if (run.reviewMode === 'plan') return this.propose(runId, plan, usage);
      run = await this.commit(runId, plan, usage);
      await this.hold.reached('plan.committed', runId);
    }
    await this.dispatchFirstRound(run);
  }

  /** A person approved the proposed plan (as it was, or edited and checked): round 1 goes out with it. */
  async approve(runId: string): Promise<void> {
    let run = await this.store.require(runId);
    if (run.status === 'needs_review' && run.proposedPlan && run.reviewAnswer?.action === 'continue') {
      run = await this.commit(runId, run.proposedPlan, emptyUsage());
      await this.hold.reached('review.answered', runId);
    }
    await this.dispatchFirstRound(run);
  }

  /** Review before dispatch: the plan is kept as proposed, its planning tokens charged, and the run waits for a person. */
  private async propose(runId: string, plan: Plan, usage: Run['usage']): Promise<void> {
    const run = await this.store.mutate(runId, (r) => {
      if (r.plan || r.proposedPlan || r.status !== 'planning') return undefined;
      r.proposedPlan = plan;
      r.status = 'needs_review';
      if (r.autoApproveAfterSeconds) r.autoApproveAt = new Date(Date.now() + r.autoApproveAfterSeconds * 1000).toISOString();
      r.usage = addUsage(r.usage, inPhase(usage, 'plan'));
      r.budgetLedger = chargeTokens(r.budgetLedger, 'plan', usage).state;
      return r;
    });
    await this.hold.reached('plan.proposed', runId);
    // Re-run after a crash, the same job id adds nothing.
    await this.autoApprove.schedule(run);
    await this.pending.announce(run);
  }

  /**
   * Writes the plan and opens round 1 on it; a budget that grants no task fails the run. A follow-up's round 1 searches
   * only the subtopics its inherited evidence does not cover; when it covers them all, the writer (or the direct
   * answer) comes next, with no search.
   */
  private async commit(runId: string, plan: Plan, usage: Run['usage']): Promise<Run> {
    const now = new Date().toISOString();
    const inherited = await this.inheritedCover(await this.store.require(runId), plan);
    plan = inherited.plan;
    const covered = inherited.covered;
    const run = await this.store.mutate(runId, (r) => {
      if (r.plan || r.status === 'cancelled') return undefined;
      r.plan = { ...plan, subtopics: [] };
      r.status = 'researching';
      delete r.proposedPlan;
      delete r.reviewAnswer;
      delete r.autoApproveAt;
      r.usage = addUsage(r.usage, inPhase(usage, 'plan'));
      r.budgetLedger = chargeTokens(r.budgetLedger, 'plan', usage).state;
      const effort = effortFor(plan.classification);
      r.budget.maxRounds = Math.min(r.budget.maxRounds, effort.maxRounds);
      r.budgetLedger.budget.maxRounds = r.budget.maxRounds;
      r.plan.subtopics = plan.subtopics.filter((s) => covered.has(s.id));
      const open = plan.subtopics.filter((s) => !covered.has(s.id));
      if (!open.length) {
        applyMove(r, { kind: 'synthesize' }, this.pending.taskEstimate(r), now);
        return r;
      }
      const ids = open.map((s) => s.id).slice(0, Math.min(effort.maxSubagentsPerRound, this.config.MAX_SUBTOPICS));
      if (!openRound(r, 1, ids, open, this.pending.taskEstimate(r), now)) {
        r.plan.subtopics = plan.subtopics;
        r.status = 'failed';
        r.errors.push({ ts: now, step: 'plan', message: 'the budget allows no task at all' });
      }
      return r;
    });
    if (run.status === 'failed') await this.transitions.finish(runId, 'failed', 'the budget allows no task at all');
    return run;
  }

  /**
   * Which subtopics of a follow-up's plan its parent's evidence already covers. The inherited findings that bear on a
   * subtopic are filed under it (evidence for coverage, findings for the writer). Those that bear on the question but
   * on no subtopic (a planner shown them plans only the gaps) get a subtopic of their own, covered and never searched,
   * so the writer has them too. A run that is no follow-up has nothing covered.
   */
  private async inheritedCover(run: Run, plan: Plan): Promise<{ plan: Plan; covered: Set<string> }> {
    if (!run.parentId) return { plan, covered: new Set() };
    // Before round 1 the follow-up's ledger holds only what it inherited.
    const findings = await this.ledger.findings(run.id);
    const bearing = inheritedBearing(plan.subtopics, findings);
    const filed = new Set(Object.values(bearing).flat());
    const unfiled = (inheritedBearing([{ id: INHERITED_SUBTOPIC, query: run.topic }], findings)[INHERITED_SUBTOPIC] ?? []).filter((id) => !filed.has(id));
    if (unfiled.length >= INHERITED_COVER_MIN && !plan.subtopics.some((s) => s.id === INHERITED_SUBTOPIC)) {
      const own: Subtopic = { id: INHERITED_SUBTOPIC, title: clipText(`Known from the earlier run: ${run.topic}`, 300), query: clipText(run.topic, 1000), facetTerms: [], excludeTerms: [], origin: 'plan' };
      plan = { ...plan, subtopics: [...plan.subtopics, own] };
      bearing[INHERITED_SUBTOPIC] = unfiled;
    }
    await this.ledger.fileInherited(run.id, findings, bearing);
    const covered = plan.subtopics.filter((s) => (bearing[s.id]?.length ?? 0) >= INHERITED_COVER_MIN).map((s) => s.id);
    const bearingIds = new Set(Object.values(bearing).flat());
    await this.decisions.log(run.id, 'plan:inherited', {
      decisionType: 'inherited-coverage',
      level: 'L0',
      confidence: 0.8,
      conclusion: clipText(
        `${bearingIds.size} of ${findings.length} inherited findings bear on the plan; ${covered.length} of ${plan.subtopics.length} subtopics covered without a search${covered.length ? ` (${covered.join(', ')})` : ''}`,
        2000,
      ),
      signals: { inherited: findings.length, bearing: bearingIds.size, covered: covered.length, subtopics: plan.subtopics.length },
    });
    return { plan, covered: new Set(covered) };
  }

  private async dispatchFirstRound(run: Run): Promise<void> {
    // A follow-up whose inheritance covers its plan goes straight to the writer.
    if (run.status === 'synthesizing' && run.rounds.length === 0) {
      await this.events.append(run.id, 'plan.ready', 'plan.ready', { plan: run.plan! });
      await this.pending.announce(run);
      await this.pending.dispatch(run);
      return;
    }
    if (run.status !== 'researching' || run.rounds.length !== 1) return;
    // Keyed, so written once: here rather than beside the write above, so that a step re-run after a
    // crash between the two still announces the plan.
    await this.events.append(run.id, 'plan.ready', 'plan.ready', { plan: run.plan! });
    await this.events.append(run.id, 'status:researching', 'run.status', { status: 'researching' });
    // Re-delivered after a crash, this re-dispatches the same round with the same job ids: a no-op.
    await this.pending.dispatch(run);
  }

  /** A follow-up's inheritance as its planner is shown it: each finding's claim and its source's title. */
  private async inheritedForPlanner(runId: string): Promise<InheritedFinding[]> {
    const findings = await this.ledger.findings(runId);
    const titles = new Map((await this.ledger.sources(runId, [...new Set(findings.map((f) => f.sourceId))])).map((s) => [s.id, s.title]));
    return findings.map((f) => ({ claim: f.claim, sourceTitle: titles.get(f.sourceId) ?? f.sourceId }));
  }

  /**
   * L0 classification first. An engine whose lead plans with a model plans every request, the L0 class shown to it as
   * advice; otherwise the engine decomposes only what deserves more than one search.
   */
  private async makePlan(run: Run): Promise<{ plan: Plan; usage: Run['usage'] }> {
    const cls = classifyRequest(run.topic);
    const effort = effortFor(cls.class);
    const engine = this.engines.coordinator(run.engine);
    const leadDecides = engine.capabilities.leadWrites === true;
    await this.decisions.log(run.id, 'plan:classification', {
      decisionType: 'classification',
      level: 'L0',
      confidence: cls.confidence,
      conclusion: leadDecides
        ? `${cls.class}, as advice to the lead, who decides the class and the form of the answer`
        : `${cls.class}: at most ${Math.min(effort.maxSubagentsPerRound, this.config.MAX_SUBTOPICS)} subagents per round, ${effort.maxRounds} rounds${effort.fullPipeline ? '' : ', one search and a direct answer'}`,
      signals: { ...cls.signals, class: cls.class },
    });
    if (!leadDecides && !effort.fullPipeline && cls.confidence >= 0.5) {
      const plan: Plan = {
        classification: 'straightforward',
        subtopics: [{ id: 'answer', title: clipText(run.topic, 300), query: clipText(run.topic, 1000), facetTerms: [], excludeTerms: [], origin: 'plan' }],
      };
      return { plan, usage: emptyUsage() };
    }
    // A lead may find more in a question than its words say: its plan gets the room of the widest class.
    const room = leadDecides ? Math.max(effortFor('breadth').maxSubagentsPerRound, effortFor('depth').maxSubagentsPerRound) : effort.maxSubagentsPerRound;
    const planning = await engine.plan({
      runId: run.id,
      topic: run.topic,
      ...(run.corpus ? { corpus: run.corpus } : {}),
      maxSubtopics: Math.min(this.config.MAX_SUBTOPICS, run.budget.maxTasks, room),
      classification: cls.class,
      ...(leadDecides ? { advice: adviseAnswer(run.topic) } : {}),
      coverageCheck: run.coverageCheck,
      ...(run.parentId ? { inherited: await this.inheritedForPlanner(run.id) } : {}),
    });
    for (const [i, d] of planning.decisions.entries()) await this.decisions.log(run.id, `plan:${i}:${d.decisionType}`, d, run.stateVersion);
    const classification = planClass(cls.class, planning.plan.classification, leadDecides);
    if (leadDecides && classification !== cls.class) {
      await this.decisions.log(run.id, 'plan:lead-classification', {
        decisionType: 'classification',
        level: 'L2',
        confidence: 0.8,
        conclusion: `the lead classified the question as ${classification} (the rules advised ${cls.class})${planning.plan.answerForm ? `; answer form ${planning.plan.answerForm}` : ''}`,
        signals: { rules: cls.class, lead: classification, answerForm: planning.plan.answerForm ?? 'none', language: planning.plan.language ?? 'none' },
      });
    }
    return { plan: { ...planning.plan, classification }, usage: planning.usage };
  }
}
