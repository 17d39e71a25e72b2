import { BadRequestException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { EngineFactory, EngineUnavailableError } from '@orrery/engines';
import { type Report, ReportSchema, type ResearchRequest, type Run, TERMINAL_RUN_STATUSES } from '@orrery/protocol';
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { RunEventsService } from '../events/run-events.service';
import { jobIds } from '../queues/job-ids';
import { TaskDispatcher } from '../queues/task-dispatcher';
import { REDIS } from '../redis/redis.module';
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
    const b = request.budget ?? {};
    const c = this.config;
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
      budget: {
        maxTokens: Math.min(b.maxTokens ?? c.BUDGET_MAX_TOKENS, c.BUDGET_CAP_TOKENS),
        maxTasks: Math.min(b.maxTasks ?? c.BUDGET_MAX_TASKS, c.BUDGET_CAP_TASKS),
        maxRounds: Math.min(b.maxRounds ?? c.BUDGET_MAX_ROUNDS, c.BUDGET_CAP_ROUNDS),
        maxWallSeconds: Math.min(b.maxWallSeconds ?? c.BUDGET_MAX_WALL_SECONDS, c.BUDGET_CAP_WALL_SECONDS),
      },
      rounds: [],
      evidence: {},
      counters: { tasksDispatched: 0, tasksCompleted: 0, tasksFailed: 0, findings: 0, sources: 0 },
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      errors: [],
      cancelRequested: false,
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

  async cancel(runId: string): Promise<Run> {
    const run = await this.get(runId);
    if (TERMINAL_RUN_STATUSES.includes(run.status)) return run;
    const cancelled = await this.transitions.finish(runId, 'cancelled');
    for (const r of run.rounds) await this.dispatcher.withdraw(jobIds.round(runId, r.n));
    await this.dispatcher.withdraw(jobIds.plan(runId));
    await this.dispatcher.withdraw(jobIds.finalize(runId));
    return cancelled;
  }
}
