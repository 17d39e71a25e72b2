import { BadRequestException, ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { EngineFactory, EngineUnavailableError } from '@orrery/engines';
import { type HumanDecision, type Report, ReportSchema, type ResearchRequest, type Run, TERMINAL_RUN_STATUSES } from '@orrery/protocol';
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { DecisionLogService } from '../events/decision-log.service';
import { RunEventsService } from '../events/run-events.service';
import { attemptOfTask, jobIds } from '../queues/job-ids';
import { TaskDispatcher } from '../queues/task-dispatcher';
import { REDIS } from '../redis/redis.module';
import { createLedger, resolveBudget } from '../budget';
import { RunStore } from './run-store';
import { RunTransitions } from './run-transitions';

export class RedisUnavailableError extends Error {}

const withTimeout = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new RedisUnavailableError(`${what}: Redis did not answer within ${ms} ms`)), ms).unref())]);

/** Creating, reading and cancelling runs: what the REST API needs. */
@Injectable()
export class RunsService {
  constructor(
    private readonly store: RunStore,
    private readonly events: RunEventsService,
    private readonly decisions: DecisionLogService,
    private readonly dispatcher: TaskDispatcher,
    private readonly transitions: RunTransitions,
    private readonly engines: EngineFactory,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  async create(request: ResearchRequest): Promise<Run> {
    let engine: Run['engine'];
    try {
      engine = this.engines.resolve(request.engine);
    } catch (err) {
      if (err instanceof EngineUnavailableError) throw new BadRequestException(err.message);
      throw err;
    }
    const corpus = engine === 'simulated' ? request.corpus : (request.corpus ?? this.engines.config.DEFAULT_CORPUS);
    if (corpus !== undefined && !this.engines.knowsCorpus(corpus)) {
      throw new BadRequestException(`corpus: unknown corpus "${corpus}"; known corpora: ${this.engines.corpusNames().join(', ') || 'none'}`);
    }
    // Fail fast with 503 rather than half-create a run while Redis is away.
    await withTimeout(this.redis.ping(), 2000, 'ping').catch((err: Error) => {
      throw new RedisUnavailableError(err.message);
    });
    const now = new Date().toISOString();
    const c = this.config;
    const budget = resolveBudget(
      { maxTokens: c.BUDGET_MAX_TOKENS, maxTasks: c.BUDGET_MAX_TASKS, maxRounds: c.BUDGET_MAX_ROUNDS, maxWallSeconds: c.BUDGET_MAX_WALL_SECONDS },
      { maxTokens: c.BUDGET_CAP_TOKENS, maxTasks: c.BUDGET_CAP_TASKS, maxRounds: c.BUDGET_CAP_ROUNDS, maxWallSeconds: c.BUDGET_CAP_WALL_SECONDS },
      request.budget,
    );
    const run: Run = {
      id: randomUUID(),
      topic: request.topic,
      engine,
      ...(corpus ? { corpus } : {}),
      status: 'queued',
      stateVersion: 0,
      createdAt: now,
      updatedAt: now,
      coverageCheck: request.coverageCheck ?? true,
      budget,
      rounds: [],
      evidence: {},
      counters: { tasksDispatched: 0, tasksCompleted: 0, tasksFailed: 0, findings: 0, sources: 0 },
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      errors: [],
      cancelRequested: false,
      judgeEnabled: c.JUDGE === 'on',
      signalHistory: { lastNonContinue: null, lastPivotRound: null, pivotCount: 0 },
      budgetLedger: createLedger(budget, Date.parse(now)),
    };
    try {
      await withTimeout(this.store.create(run), 3000, 'create run');
      await this.events.append(run.id, 'run.created', 'run.created', { topic: run.topic, engine, ...(corpus ? { corpus } : {}) });
      await withTimeout(this.dispatcher.enqueuePlan(run.id), 3000, 'enqueue plan');
    } catch (err) {
      // Nothing half-created: a run whose first step could not be queued is removed again.
      await this.redis.del(...this.store.keys.all(run.id)).catch(() => undefined);
      throw err instanceof RedisUnavailableError ? err : new RedisUnavailableError((err as Error).message);
    }
    return run;
  }

  async get(runId: string): Promise<Run> {
    const run = await this.store.get(runId);
    if (!run) throw new NotFoundException(`run ${runId} not found`);
    return run;
  }

  async report(runId: string): Promise<Report | undefined> {
    await this.get(runId);
    const raw = await this.redis.get(this.store.keys.report(runId));
    return raw ? ReportSchema.parse(JSON.parse(raw)) : undefined;
  }

  /** A person's answer to a run in needs_review: continue (optionally with more budget) or stop and report. */
  async decide(runId: string, decision: HumanDecision): Promise<Run> {
    const run = await this.get(runId);
    if (run.status !== 'needs_review') throw new ConflictException(`run ${runId} is ${run.status}, not needs_review`);
    const c = this.config;
    const caps = { maxTokens: c.BUDGET_CAP_TOKENS, maxTasks: c.BUDGET_CAP_TASKS, maxRounds: c.BUDGET_CAP_ROUNDS, maxWallSeconds: c.BUDGET_CAP_WALL_SECONDS };
    const round = run.rounds.length;
    const updated = await this.store.mutate(runId, (r) => {
      if (r.status !== 'needs_review') return undefined;
      const extra = decision.extraBudget ?? {};
      for (const k of Object.keys(caps) as (keyof typeof caps)[]) r.budget[k] = Math.min(caps[k], r.budget[k] + (extra[k] ?? 0));
      r.budgetLedger.budget = { ...r.budget };
      return r;
    });
    await this.decisions.log(runId, `human:${round}`, {
      decisionType: 'human-decision',
      level: 'L3',
      confidence: 1,
      conclusion: `a person chose to ${decision.action}${decision.extraBudget ? ` with extra budget ${JSON.stringify(decision.extraBudget)}` : ''}`,
      signals: { action: decision.action, round },
    });
    await this.dispatcher.enqueueResume(runId, round, decision.action);
    return updated;
  }

  async cancel(runId: string): Promise<Run> {
    const run = await this.get(runId);
    if (TERMINAL_RUN_STATUSES.includes(run.status)) return run;
    const cancelled = await this.transitions.finish(runId, 'cancelled');
    const retries = (r: Run['rounds'][number]) => [...new Set(r.taskIds.map(attemptOfTask).filter(Boolean))].map((k) => jobIds.retry(runId, r.n, k));
    await this.dispatcher.withdraw('steps', [jobIds.plan(runId), ...run.rounds.flatMap((r) => [jobIds.round(runId, r.n), ...retries(r)]), jobIds.finalize(runId)]);
    await this.dispatcher.withdraw('tasks', [...run.rounds.flatMap((r) => r.taskIds), jobIds.write(runId)]);
    return cancelled;
  }
}
