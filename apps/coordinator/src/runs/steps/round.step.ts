import { Inject, Injectable } from '@nestjs/common';
import { EngineFactory, type EngineDecision } from '@orrery/engines';
import type { Run, Subtopic } from '@orrery/protocol';
import type { Job } from 'bullmq';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../../config/coordinator-config';
import { roundFigures } from '../../coverage/round-figures';
import { DecisionLogService } from '../../events/decision-log.service';
import { RunEventsService } from '../../events/run-events.service';
import { LedgerStore } from '../../ledger/ledger.store';
import { ResultIntakeService } from '../../ledger/result-intake.service';
import { buildRoundTasks, buildSynthesisTask } from '../../planning/task-builder';
import { TaskDispatcher } from '../../queues/task-dispatcher';
import { RunStore } from '../run-store';
import { RunTransitions } from '../run-transitions';
import { addUsage } from './plan.step';

type NextMove = { kind: 'round'; subtopicIds: string[]; newSubtopics: Subtopic[] } | { kind: 'synthesize' };

/** Runs when a round's tasks are all done (or failed): merge, measure, decide, dispatch what is next. */
@Injectable()
export class RoundStep {
  constructor(
    private readonly store: RunStore,
    private readonly engines: EngineFactory,
    private readonly intake: ResultIntakeService,
    private readonly ledger: LedgerStore,
    private readonly decisions: DecisionLogService,
    private readonly events: RunEventsService,
    private readonly dispatcher: TaskDispatcher,
    private readonly transitions: RunTransitions,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  async run(runId: string, round: number, job: Job): Promise<void> {
    let run = await this.store.require(runId);
    if (run.status !== 'researching' || !run.plan) return this.redispatch(run);
    const rec = run.rounds.find((r) => r.n === round);
    if (!rec || rec.status === 'completed') return this.redispatch(run);

    const values = await job.getChildrenValues();
    const failures = await job.getIgnoredChildrenFailures();
    let returned = 0;
    let newFindings = 0;
    let newSources = 0;
    let completed = 0;
    let usage = run.usage;
    const errors: string[] = [];
    for (const [key, value] of Object.entries(values)) {
      const taskId = key.slice(key.lastIndexOf(':') + 1);
      const outcome = await this.intake.accept(runId, round, taskId, value);
      if (!outcome.ok) {
        errors.push(`${taskId}: ${outcome.error}`);
        await this.events.append(runId, `task.failed:${taskId}`, 'task.failed', { round, taskId, error: outcome.error });
        continue;
      }
      completed++;
      returned += outcome.result.findings.length;
      newFindings += outcome.merge.newFindings;
      newSources += outcome.merge.newSources;
      usage = addUsage(usage, outcome.result.usage);
    }
    for (const [key, reason] of Object.entries(failures)) {
      const taskId = key.slice(key.lastIndexOf(':') + 1);
      errors.push(`${taskId}: ${reason}`);
      await this.events.append(runId, `task.failed:${taskId}`, 'task.failed', { round, taskId, error: String(reason).slice(0, 2000) });
    }

    const findings = await this.ledger.findings(runId);
    const figures = roundFigures(run.plan, findings, returned, newFindings);
    const next = await this.decideNext(run, round, figures, findings);
    const failed = errors.length;
    const now = new Date().toISOString();
    const counts = await this.ledger.counts(runId);

    run = await this.store.mutate(runId, (r) => {
      const x = r.rounds.find((y) => y.n === round);
      if (!x || x.status === 'completed' || !r.plan) return undefined;
      Object.assign(x, { status: 'completed', completed, failed, newFindings, newSources, novelty: figures.novelty, coverage: figures.coverage, endedAt: now });
      r.counters = { ...r.counters, tasksCompleted: r.counters.tasksCompleted + completed, tasksFailed: r.counters.tasksFailed + failed, ...counts };
      r.usage = usage;
      r.evidence = figures.evidence;
      for (const e of errors) r.errors.push({ ts: now, step: `round ${round}`, message: e.slice(0, 2000) });
      if (r.status !== 'researching') return r;
      if (next.kind === 'round') {
        r.plan.subtopics.push(...next.newSubtopics);
        r.rounds.push({ n: round + 1, status: 'dispatched', taskIds: [], subtopicIds: next.subtopicIds, completed: 0, failed: 0, newFindings: 0, newSources: 0, novelty: 0, coverage: 0, startedAt: now });
      } else {
        r.status = 'synthesizing';
      }
      return r;
    });
    await this.events.append(runId, `round.completed:${round}`, 'round.completed', { round, newFindings, newSources, novelty: figures.novelty, coverage: figures.coverage });
    if (run.status === 'synthesizing') await this.events.append(runId, 'status:synthesizing', 'run.status', { status: 'synthesizing' });
    await this.redispatch(run);
  }

  /** Dispatches whatever the record says comes next; with deterministic job ids a repeat is a no-op. */
  private async redispatch(run: Run): Promise<void> {
    if (run.status === 'synthesizing' && run.plan) {
      const findings = await this.ledger.findings(run.id);
      const sources = await this.ledger.sources(run.id, [...new Set(findings.map((f) => f.sourceId))]);
      await this.dispatcher.dispatchSynthesis(run.id, buildSynthesisTask(run, run.plan, findings, sources, this.limits()));
      return;
    }
    const last = run.rounds[run.rounds.length - 1];
    if (run.status !== 'researching' || !last || last.status !== 'dispatched') return;
    const tasks = buildRoundTasks(run, last.n, await this.ledger.sourceIds(run.id), this.limits());
    await this.transitions.recordDispatch(run, last.n, tasks);
    await this.dispatcher.dispatchRound(run.id, last.n, tasks);
  }

  private async decideNext(run: Run, round: number, figures: ReturnType<typeof roundFigures>, findings: Awaited<ReturnType<LedgerStore['findings']>>): Promise<NextMove> {
    const plan = run.plan!;
    const signals = { round, novelty: round1(figures.novelty), coverage: round1(figures.coverage), thin: figures.thinSubtopicIds.length };
    const log = (d: EngineDecision) => this.decisions.log(run.id, `round:${round}:${d.decisionType}`, d, run.stateVersion);
    const tasksLeft = run.budget.maxTasks - run.counters.tasksDispatched;
    const elapsed = (Date.now() - Date.parse(run.createdAt)) / 1000;
    if (round >= run.budget.maxRounds || tasksLeft <= 0 || elapsed >= run.budget.maxWallSeconds) {
      await log({ decisionType: 'round-cap', level: 'L0', confidence: 1, conclusion: 'synthesize: the round, task or time budget is spent', signals: { ...signals, tasksLeft, elapsed: Math.round(elapsed) } });
      return { kind: 'synthesize' };
    }
    if (round > 1 && figures.novelty < this.config.NOVELTY_STOP) {
      await log({ decisionType: 'novelty-stop', level: 'L0', confidence: 0.9, conclusion: `synthesize: the round added too little new evidence (${signals.novelty} < ${this.config.NOVELTY_STOP})`, signals });
      return { kind: 'synthesize' };
    }
    const refinement = await this.engines.coordinator(run.engine).refine({
      runId: run.id,
      topic: run.topic,
      ...(run.corpus ? { corpus: run.corpus } : {}),
      plan,
      round,
      findings,
      evidence: figures.evidence,
      maxNewTasks: Math.min(this.config.MAX_NEW_TASKS_PER_ROUND, tasksLeft),
    });
    for (const d of refinement.decisions) await log(d);
    const known = new Set(plan.subtopics.map((s) => s.id));
    const newSubtopics = refinement.newSubtopics.filter((s) => !known.has(s.id));
    const subtopicIds = [...refinement.thinSubtopicIds.filter((id) => known.has(id)), ...newSubtopics.map((s) => s.id)].slice(0, tasksLeft);
    if (!subtopicIds.length) {
      await log({ decisionType: 'coverage-stop', level: 'L0', confidence: 0.85, conclusion: 'synthesize: no gaps left worth another round', signals });
      return { kind: 'synthesize' };
    }
    await log({ decisionType: 'continue', level: 'L0', confidence: 0.8, conclusion: `round ${round + 1}: ${subtopicIds.length} gap-targeted tasks`, signals: { ...signals, newSubtopics: newSubtopics.length } });
    return { kind: 'round', subtopicIds, newSubtopics: newSubtopics.filter((s) => subtopicIds.includes(s.id)) };
  }

  private limits() {
    return { findingsPerTask: this.config.FINDINGS_PER_TASK, maxCitations: this.config.MAX_CITATIONS };
  }
}

const round1 = (x: number) => Math.round(x * 100) / 100;
