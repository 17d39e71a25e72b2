import { InjectQueue } from '@nestjs/bullmq';
import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { stepJudgeSettingsFromEnv } from '@orrery/decisions';
import { clipText, formatZodError, SUBAGENT_QUEUE, SubagentTaskSchema, type TaskProgress, TaskProgressSchema, type TaskResult } from '@orrery/protocol';
import { EngineFactory } from '@orrery/engines';
import { PassageStoreUnavailableError } from '@orrery/passages';
import { type ProgressUpdate } from '@orrery/engine';
import { type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import { hostname } from 'node:os';
import { SUBAGENT_CONFIG, type SubagentConfig } from '../config/subagent-config';
import { ActiveJobs, breakerSettingsFromEnv, connectRedis, FleetRequestGate, inSpan, JudgeSwitch, type RedisClient, withLogContext, workerOn } from '@orrery/runtime';
import { ProgressGate } from './progress-gate';
import { rateLimitedFor, toJobError } from './task-errors';

/** One task per job; the payload is all a task knows. Results go back through BullMQ to the coordinator. */
@Injectable()
export class SubagentTasksProcessor implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(SubagentTasksProcessor.name);
  private readonly active = new ActiveJobs();
  private readonly workerName: string;
  private readonly gateRedis: RedisClient;
  private worker!: Worker;
  constructor(
    private readonly engines: EngineFactory,
    @InjectQueue(SUBAGENT_QUEUE) private readonly queue: Queue,
    @Inject(SUBAGENT_CONFIG) private readonly config: SubagentConfig,
  ) {
    this.workerName = config.WORKER_NAME ?? `${hostname()}:${process.pid}`;
    this.gateRedis = connectRedis(config, { maxRetriesPerRequest: 1, connectionName: `orrery-gate:${this.workerName}`, lazyConnect: true });
    this.gateRedis.on('error', (err) => this.logger.warn(`rate-limit gate: ${err.message}`));
  }

  /**
   * The fleet's rate-limit gate and provider breaker: this worker's Claude requests wait behind a 429 or an outage any
   * process met, and one met here stops every worker from starting a new task until the wall or cool-down has passed.
   */
  onModuleInit(): void {
    // BREAKER_*: when the provider's breaker opens and how long it stays shut.
    const breaker = breakerSettingsFromEnv();
    this.engines.useRequestGate(new FleetRequestGate(this.gateRedis, this.config.QUEUE_PREFIX, { onPause: (ms) => this.queue.rateLimit(ms), breaker }));
    // The deployment's judge switch, read before every model judgement inside a task: an admin's flip reaches tasks already running.
    const judgeSettings = stepJudgeSettingsFromEnv();
    const judgeSwitch = new JudgeSwitch(this.gateRedis, this.config.QUEUE_PREFIX);
    this.engines.useJudgeSwitch({ timeoutMs: judgeSettings.timeoutMs, enabled: () => judgeSwitch.modelJudging(judgeSettings.judgeEnabled) });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.worker.close();
    await this.gateRedis.quit().catch(() => this.gateRedis.disconnect());
  }

  /** The worker, its options from the config, takes tasks once every module is initialised. */
  onApplicationBootstrap(): void {
    const config = this.config;
    this.worker = workerOn(this.queue, (job, token) => this.process(job, token), {
      name: this.workerName,
      concurrency: config.SUBAGENT_CONCURRENCY,
      lockDuration: config.SUBAGENT_LOCK_MS,
      // A dead worker's task is found by the next stalled check, so check once per lock period.
      stalledInterval: config.SUBAGENT_LOCK_MS,
      maxStalledCount: 2,
      // Always a limiter: BullMQ honours a queue-wide pause (Queue.rateLimit, set when the API answers 429) only on a
      // worker that has one. Without SUBAGENT_RATE_MAX it never limits by count.
      limiter: { max: config.SUBAGENT_RATE_MAX > 0 ? config.SUBAGENT_RATE_MAX : Number.MAX_SAFE_INTEGER, duration: config.SUBAGENT_RATE_DURATION_MS },
    });
    this.worker.on('error', (err) => this.logger.warn(`worker: ${err.message}`));
    const limit = config.SUBAGENT_RATE_MAX > 0 ? `; global rate limit ${config.SUBAGENT_RATE_MAX} tasks per ${config.SUBAGENT_RATE_DURATION_MS} ms (all workers)` : '';
    this.logger.log(`worker ${this.workerName} consuming "${SUBAGENT_QUEUE}" with concurrency ${config.SUBAGENT_CONCURRENCY}${limit}`);
  }

  /** SIGTERM: finish the tasks in hand within SHUTDOWN_GRACE_MS, else release them to other workers. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.active.drain(this.worker, this.config.SHUTDOWN_GRACE_MS, this.logger);
  }

  process(job: Job, token?: string): Promise<TaskResult> {
    const { runId, taskId } = job.data as { runId?: string; taskId?: string };
    return withLogContext({ runId, jobId: job.id, taskId }, () => this.active.track(job, token, () => this.runTask(job)));
  }

  private async runTask(job: Job): Promise<TaskResult> {
    const parsed = SubagentTaskSchema.safeParse(job.data);
    if (!parsed.success) {
      throw new UnrecoverableError(`invalid task payload: ${formatZodError(parsed.error)}`);
    }
    const task = parsed.data;
    // Neither is awaited, so they cost the task no round trip; one connection keeps them in order, ahead
    // of the result. A lost progress line (a lock lost, Redis away) must not fail the task.
    const gate = new ProgressGate((u) => void job.updateProgress({ taskId: task.taskId, ...u }).catch(() => undefined), this.config.SUBAGENT_PROGRESS_QUIET_MS);
    // Decision lines (stage `decision:<type>`) travel with the result too: progress is best effort.
    const decisions: TaskProgress[] = [];
    const progress = (u: ProgressUpdate): void => {
      const line = u.stage.startsWith('decision:') ? TaskProgressSchema.safeParse({ taskId: task.taskId, ...u }) : undefined;
      if (line?.success && decisions.length < 50) decisions.push(line.data);
      gate.report(u);
    };
    // BullMQ stamps every job with its worker's name (processedBy); the log line is for a task still running
    // after the quiet period, like its progress, so that a fast task costs no write ahead of its result.
    const taken = setTimeout(() => void job.log(`taken by ${this.workerName} (attempt ${job.attemptsMade + 1})`).catch(() => undefined), this.config.SUBAGENT_PROGRESS_QUIET_MS);
    try {
      const engine = this.engines.subagent(task.engine);
      const result = await inSpan(`task ${task.kind}`, { 'orrery.run_id': task.runId, 'orrery.task_id': task.taskId, 'orrery.job_id': job.id ?? '', 'orrery.engine': task.engine }, async (): Promise<TaskResult> => {
        this.logger.debug(`run ${task.runId}: ${task.kind} task ${task.taskId}, attempt ${job.attemptsMade + 1}`);
        return task.kind === 'search' ? engine.search(task, progress) : engine.synthesize(task, progress);
      });
      // Checked where it lands: the coordinator parses every result with the protocol schema before using it.
      return { ...result, stats: { ...result.stats, workerPid: process.pid }, ...(decisions.length ? { decisions } : {}) };
    } catch (err) {
      // Rate limited, or the provider down, for longer than a request waits: the task goes back to the queue, without
      // spending an attempt, and the queue stays shut for the retry-after or the breaker's cool-down.
      const wait = rateLimitedFor(err);
      if (wait !== undefined) {
        await this.queue.rateLimit(wait);
        await job.log(`${this.workerName}: rate limited or provider down; back to the queue for ${wait} ms`).catch(() => undefined);
        throw Worker.RateLimitError();
      }
      // Retryable (529/5xx after the engine's retries, connection): thrown as is, so the job's backoff retries it.
      // Permanent (4xx, output invalid with no fallback, data failing its schema): UnrecoverableError, no more attempts.
      const out = toJobError(err);
      // The job's error is for any key (run errors, webhooks, MCP); what the store's driver said stays in this log.
      if (err instanceof PassageStoreUnavailableError) this.logger.warn(`task ${task.taskId}: passage store: ${err.detail}`);
      await job.log(clipText(`${this.workerName}: ${out instanceof UnrecoverableError ? 'failed for good' : 'failed, will retry with backoff'}: ${out.message}`, 2000)).catch(() => undefined);
      throw out;
    } finally {
      clearTimeout(taken);
      gate.close();
    }
  }
}
