import { BadRequestException, ConflictException, ForbiddenException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { EngineFactory, EngineUnavailableError } from '@orrery/engines';
import { emptyUsage } from '@orrery/engine';
import {
  type Budget,
  type BudgetRequest,
  type Decision,
  type HumanDecision,
  type Report,
  type FollowupRequest,
  type ResearchRequest,
  type Run,
  type RunCoverage,
  type RunStatus,
  type RunSummary,
  type Source,
  TERMINAL_RUN_STATUSES,
} from '@orrery/protocol';
import { currentTraceparent, withTraceparent } from '@orrery/runtime';
import { randomUUID } from 'node:crypto';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { evidenceOf } from '../coverage/round-figures';
import { subtopicCoverage } from '../coverage/subtopic-coverage';
import { DecisionLogService } from '../events/decision-log.service';
import { RunEventsService } from '../events/run-events.service';
import { LedgerStore } from '../ledger/ledger.store';
import { attemptOfTask, jobIds } from '../queues/job-ids';
import { TaskDispatcher } from '../queues/task-dispatcher';
import { canSee, type Principal } from '../auth/principal';
import { openBudgetAccount, grantExtraBudget, resolveBudget } from '../budget';
import { RunQuotas } from '../quotas/run-quotas.service';
import { CorpusIngest } from '../corpora/corpus-ingest.service';
import { WebhookLog } from '../webhooks/webhook-log';
import { WebhookTargets } from '../webhooks/webhook-targets.service';
import { checkEditedPlan } from '../planning/check-edited-plan';
import { AutoApproveSchedule } from './plan-review/auto-approve-schedule';
import { PlanRevisions } from './plan-review/plan-revisions';
import { RunIndex } from './run-index';
import { RunStore } from './run-store';
import { RunTransitions } from './run-transitions';

export class RedisUnavailableError extends Error {}

const withTimeout = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new RedisUnavailableError(`${what}: Redis did not answer within ${ms} ms`)), ms).unref())]);

const SUMMARY_FIELDS = ['id', 'topic', 'status', 'engine', 'corpus', 'createdAt', 'updatedAt', 'finishedAt', 'usage'] as const;
const LIST_PAGE = 100;
const LIST_SCAN_MAX = 1000;

/**
 * Creating, listing, reading, answering and cancelling runs, for every surface (REST, SSE, MCP, the web page).
 * Each method takes the caller's principal: a run another key owns is answered exactly like one that does not
 * exist (404), and a new run is admitted by the caller's quotas first.
 */
@Injectable()
export class RunsService {
  constructor(
    private readonly store: RunStore,
    private readonly index: RunIndex,
    private readonly quotas: RunQuotas,
    private readonly events: RunEventsService,
    private readonly decisionLog: DecisionLogService,
    private readonly dispatcher: TaskDispatcher,
    private readonly transitions: RunTransitions,
    private readonly engines: EngineFactory,
    private readonly ledger: LedgerStore,
    private readonly ingest: CorpusIngest,
    private readonly webhookTargets: WebhookTargets,
    private readonly webhookLog: WebhookLog,
    private readonly revisions: PlanRevisions,
    private readonly autoApprove: AutoApproveSchedule,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  /**
   * A follow-up question on a finished run the caller owns: a new run on the same engine and corpus whose ledger
   * starts as a copy of the parent's, so its sources and findings can be cited again and its searches skip them.
   */
  async followUp(principal: Principal, parentId: string, request: FollowupRequest): Promise<Run> {
    const parent = await this.get(principal, parentId);
    if (parent.status !== 'done') throw new ConflictException(`run ${parentId} is ${parent.status}: follow-ups are asked on a run that is done`);
    const { question, ...rest } = request;
    const run = await this.create(principal, { ...rest, topic: question, engine: parent.engine, ...(parent.corpus ? { corpus: parent.corpus } : {}) }, parent);
    await this.store.mutate(parentId, (r) => {
      if (r.followups?.includes(run.id)) return undefined;
      r.followups = [...(r.followups ?? []), run.id];
      return r;
    }).catch(() => undefined);
    return run;
  }

  async create(principal: Principal, request: ResearchRequest, parent?: Run): Promise<Run> {
    let engine: Run['engine'];
    try {
      engine = this.engines.resolve(request.engine);
    } catch (err) {
      if (err instanceof EngineUnavailableError) throw new BadRequestException(err.message);
      throw err;
    }
    const { usesCorpus } = this.engines.coordinator(engine).capabilities;
    const corpus = request.corpus ?? this.engines.defaultCorpusFor(engine);
    // Ingesting first: a corpus ingested for the first time has no passages yet, and is unknown until it is ready.
    if (corpus !== undefined && usesCorpus) await withTimeout(this.ingest.assertResearchable(corpus), 2000, 'ingest state');
    if (corpus !== undefined && !(await this.engines.knowsCorpus(corpus))) {
      throw new BadRequestException(`corpus: unknown corpus "${corpus}"`);
    }
    if (request.webhook) await this.webhookTargets.assertAllowed(request.webhook.url);
    // Fail fast with 503 rather than half-create a run while Redis is away.
    await withTimeout(this.store.ping(), 2000, 'ping').catch((err: Error) => {
      throw new RedisUnavailableError(err.message);
    });
    const id = randomUUID();
    await this.quotas.admit(principal, id);
    const now = new Date().toISOString();
    const traceparent = currentTraceparent();
    const { defaults, caps } = this.budgetLimits();
    const budget = resolveBudget(defaults, caps, request.budget);
    const run: Run = {
      id,
      owner: principal.id,
      topic: request.topic,
      engine,
      ...(corpus ? { corpus } : {}),
      status: 'queued',
      stateVersion: 0,
      createdAt: now,
      updatedAt: now,
      ...(traceparent ? { traceparent } : {}),
      coverageCheck: request.coverageCheck ?? true,
      budget,
      rounds: [],
      evidence: {},
      counters: { tasksDispatched: 0, tasksCompleted: 0, tasksFailed: 0, findings: 0, sources: 0 },
      usage: emptyUsage(),
      errors: [],
      cancelRequested: false,
      judgeEnabled: this.config.JUDGE === 'on',
      signalHistory: { lastNonContinue: null, lastPivotRound: null, pivotCount: 0 },
      budgetLedger: openBudgetAccount(budget, Date.parse(now)),
      ...(request.webhook ? { webhook: request.webhook } : {}),
      ...(request.review ? { reviewMode: 'plan' as const } : {}),
      ...(typeof request.review === 'object' && request.review.autoApproveAfterSeconds ? { autoApproveAfterSeconds: request.review.autoApproveAfterSeconds } : {}),
      ...(parent ? { parentId: parent.id } : {}),
    };
    try {
      await withTimeout(this.store.create(run), 3000, 'create run');
      await this.index.add(run.owner, run.id, Date.parse(now));
      if (parent) await this.ledger.copy(parent.id, run.id);
      await this.events.append(run.id, 'run.created', 'run.created', { topic: run.topic, engine, ...(corpus ? { corpus } : {}) });
      await withTimeout(this.dispatcher.enqueuePlan(run.id), 3000, 'enqueue plan');
    } catch (err) {
      // Nothing half-created: a run whose first step could not be queued is removed again, and counts for nothing.
      await this.store.drop(run.id).catch(() => undefined);
      await this.index.remove(run.owner, run.id).catch(() => undefined);
      await this.quotas.withdraw(principal, run.id).catch(() => undefined);
      throw err instanceof RedisUnavailableError ? err : new RedisUnavailableError((err as Error).message);
    }
    return run;
  }

  /**
   * The caller's runs (an admin's: every run), newest first, optionally of one status; `before` (an ISO time)
   * pages back. A status filter reads the index a page at a time, at most LIST_SCAN_MAX entries.
   */
  async list(principal: Principal, query: { limit: number; before?: string; status?: RunStatus }): Promise<RunSummary[]> {
    const found: Run[] = [];
    const size = query.status ? LIST_PAGE : query.limit;
    let before = query.before === undefined ? undefined : Date.parse(query.before);
    for (let scanned = 0; found.length < query.limit && scanned < LIST_SCAN_MAX; ) {
      const ids = await this.index.page(principal, size, before);
      const runs = await this.store.getMany(ids);
      await this.index.forget(principal, ids.filter((_, i) => !runs[i]));
      for (const r of runs) if (r && canSee(principal, r.owner) && (!query.status || r.status === query.status)) found.push(r);
      scanned += ids.length;
      if (ids.length < size) break;
      const oldest = runs.findLast((r) => r !== undefined);
      if (oldest) before = Date.parse(oldest.createdAt);
    }
    return Promise.all(
      found.slice(0, query.limit).map(async (r) => ({
        ...(Object.fromEntries(SUMMARY_FIELDS.flatMap((k) => (r[k] === undefined ? [] : [[k, r[k]]]))) as Omit<RunSummary, 'citations'>),
        citations: r.status === 'done' ? ((await this.store.report(r.id))?.sources.length ?? null) : null,
      })),
    );
  }

  /** The run, if the caller may see it; 404 alike for a run that does not exist and one another key owns. */
  async get(principal: Principal, runId: string): Promise<Run> {
    const run = await this.store.get(runId);
    if (!run || !canSee(principal, run.owner)) throw new NotFoundException(`run ${runId} not found`);
    return run;
  }

  async report(principal: Principal, runId: string): Promise<Report | undefined> {
    await this.get(principal, runId);
    return this.store.report(runId);
  }

  /** A source the run retrieved, with the text its quotes were checked against. */
  async source(principal: Principal, runId: string, sourceId: string): Promise<Source> {
    await this.get(principal, runId);
    const [source] = await this.ledger.sources(runId, [sourceId]);
    if (!source) throw new NotFoundException(`run ${runId} retrieved no source ${sourceId}`);
    return source;
  }

  /** Evidence per subtopic in the ledger now (it grows as results are merged), and the share the last completed round measured. */
  async coverage(principal: Principal, runId: string): Promise<RunCoverage> {
    const run = await this.get(principal, runId);
    const [findings, brought] = await Promise.all([this.ledger.findings(runId), this.ledger.broughtBy(runId)]);
    const evidence = evidenceOf(run.plan, findings, brought);
    const measured = run.rounds.filter((r) => r.status === 'completed').at(-1);
    return { share: measured ? measured.coverage : null, target: this.config.TARGET_COVERAGE, subtopics: subtopicCoverage(run.plan, evidence) };
  }

  /** The run's webhook URL and every delivery attempt so far. */
  async webhooks(principal: Principal, runId: string) {
    const run = await this.get(principal, runId);
    return { url: run.webhook?.url ?? null, deliveries: await this.webhookLog.list(runId) };
  }

  async decisions(principal: Principal, runId: string): Promise<Decision[]> {
    await this.get(principal, runId);
    return this.decisionLog.list(runId);
  }

  /**
   * A person's answer to a run in needs_review: continue (optionally with more budget) or stop and report.
   * The answer is taken in the same compare-and-set that checks the status, so of two answers at once one
   * wins and the other gets 409.
   */
  async decide(principal: Principal, runId: string, decision: HumanDecision): Promise<Run> {
    const run = await this.get(principal, runId);
    if (decision.action === 'revise') return this.revisions.revise(run, decision.feedback);
    const notInReview = (r: Run) => new ConflictException(r.reviewAnswer ? `run ${runId} was answered already (${r.reviewAnswer.action})` : `run ${runId} is ${r.status}, not needs_review`);
    if (run.status !== 'needs_review' || run.reviewAnswer) throw notInReview(run);
    const c = this.config;
    const planReview = run.proposedPlan !== undefined;
    if (decision.plan && !planReview) throw new BadRequestException(`plan: run ${runId} is not waiting for plan review; only a run started with "review": "plan" takes a plan`);
    if (decision.plan && decision.action !== 'continue') throw new BadRequestException('plan: a plan goes with "action": "continue"');
    const round = run.rounds.length;
    const budget = decision.extraBudget ? await this.grant(principal, run, decision.extraBudget) : run.budget;
    const extend = (r: Run) => {
      r.budget = { ...budget };
      r.budgetLedger.budget = { ...budget };
    };
    if (planReview && decision.action === 'continue') {
      // Checked against the budget as this answer leaves it, before anything is written.
      const trial = structuredClone(run);
      extend(trial);
      const problems = checkEditedPlan(decision.plan ?? run.proposedPlan!, {
        maxSubtopics: c.MAX_SUBTOPICS,
        account: trial.budgetLedger,
        perTask: this.engines.coordinator(run.engine).taskEstimate,
        nowMs: Date.now(),
      });
      if (problems.length) throw new BadRequestException(`plan: ${problems.join('; ')}`);
    }
    let lost: Run | undefined;
    const updated = await this.store.mutate(runId, (r) => {
      if (r.status !== 'needs_review' || r.reviewAnswer || (r.proposedPlan !== undefined) !== planReview) {
        lost = r;
        return undefined;
      }
      lost = undefined;
      extend(r);
      if (decision.plan) r.proposedPlan = decision.plan;
      r.reviewAnswer = { action: decision.action, at: new Date().toISOString() };
      return r;
    });
    if (lost) throw notInReview(lost);
    if (planReview) await this.autoApprove.withdraw(updated);
    await this.decisionLog.log(runId, `human:${round}:${updated.stateVersion}`, {
      decisionType: 'human-decision',
      level: 'L3',
      confidence: 1,
      conclusion: `a person chose to ${decision.action}${planReview ? (decision.plan ? ' with an edited plan' : ' with the proposed plan') : ''}${decision.extraBudget ? ` with extra budget ${JSON.stringify(decision.extraBudget)}` : ''}`,
      signals: { action: decision.action, round, ...(planReview ? { planReview: true, subtopics: updated.proposedPlan!.subtopics.length } : {}) },
    });
    // Nothing was researched yet: a stop at plan review ends the run with nothing to report.
    if (planReview && decision.action === 'stop') return this.transitions.finish(runId, 'cancelled');
    await withTraceparent(updated.traceparent, () => this.dispatcher.enqueueResume(runId, round, decision.action, updated.stateVersion));
    return updated;
  }

  /**
   * The run's budget with a review's extra budget added, or a refusal naming the most the key may add. An admin key
   * lifts a run up to the hard caps; any other key up to the server's defaults and what its daily quotas have left,
   * so that a review grants a tenant no more than a new run would get.
   */
  private async grant(principal: Principal, run: Run, extra: BudgetRequest): Promise<Budget> {
    const { defaults, caps } = this.budgetLimits();
    const ceiling = principal.admin ? caps : (Object.fromEntries(Object.entries(defaults).map(([k, v]) => [k, Math.min(v, caps[k as keyof Budget])])) as Budget);
    const quotaLeft = await this.quotas.spendLeft(principal);
    const granted = grantExtraBudget(run.budget, run.budgetLedger.used, extra, { ceiling, ceilingName: principal.admin ? 'the hard cap' : "the server's default budget", quotaLeft });
    if (granted.ok) return granted.budget;
    const message = `extraBudget: ${granted.exceeded.join('; ')}. ${principal.admin ? '' : 'Only an admin key may lift a run past the server’s default budget, up to the hard caps. '}Nothing was changed.`;
    const body = { statusCode: principal.admin ? 400 : 403, error: principal.admin ? 'Bad Request' : 'Forbidden', message, maxExtraBudget: granted.most };
    throw principal.admin ? new BadRequestException(body) : new ForbiddenException(body);
  }

  /** The server's budget for a new run (BUDGET_MAX_*) and the hard caps no run passes (BUDGET_CAP_*). */
  private budgetLimits(): { defaults: Budget; caps: Budget } {
    const c = this.config;
    return {
      defaults: { maxTokens: c.BUDGET_MAX_TOKENS, maxTasks: c.BUDGET_MAX_TASKS, maxRounds: c.BUDGET_MAX_ROUNDS, maxWallSeconds: c.BUDGET_MAX_WALL_SECONDS, maxCostUsd: c.BUDGET_MAX_COST_USD },
      caps: { maxTokens: c.BUDGET_CAP_TOKENS, maxTasks: c.BUDGET_CAP_TASKS, maxRounds: c.BUDGET_CAP_ROUNDS, maxWallSeconds: c.BUDGET_CAP_WALL_SECONDS, maxCostUsd: c.BUDGET_CAP_COST_USD },
    };
  }

  /** Cancels the run in any state; a finished run is answered as it is. */
  async cancel(principal: Principal, runId: string): Promise<Run> {
    const run = await this.get(principal, runId);
    if (TERMINAL_RUN_STATUSES.includes(run.status)) return run;
    const cancelled = await this.transitions.finish(runId, 'cancelled');
    const retries = (r: Run['rounds'][number]) => [...new Set(r.taskIds.map(attemptOfTask).filter(Boolean))].map((k) => jobIds.retry(runId, r.n, k));
    await this.dispatcher.withdraw('steps', [jobIds.plan(runId), ...run.rounds.flatMap((r) => [jobIds.round(runId, r.n), ...retries(r)]), jobIds.finalize(runId), jobIds.finalize(runId, 1)]);
    await this.dispatcher.withdraw('tasks', [...run.rounds.flatMap((r) => r.taskIds), jobIds.write(runId), jobIds.write(runId, 1)]);
    return cancelled;
  }
}
