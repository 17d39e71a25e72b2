import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, type OnModuleDestroy, Optional } from '@nestjs/common';
import { billOf, type EngineDecision } from '@orrery/engine';
import { COORDINATOR_QUEUE, type Run, SUBAGENT_QUEUE, WEBHOOK_QUEUE } from '@orrery/protocol';
import type { Queue } from 'bullmq';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { FleetGate } from '../queues/fleet-gate';
import { TaskDispatcher } from '../queues/task-dispatcher';

/** Where a judgement was asked: after a run's round, inside a Claude task's loop, or over MCP. */
export type JudgeSurface = 'round' | 'loop' | 'mcp';

/**
 * Prometheus metrics of this coordinator replica. The verdict distribution is how a judge that always
 * says `continue` (or a result check that passes everything) gets caught.
 */
@Injectable()
export class MetricsService implements OnModuleDestroy {
  readonly registry = new Registry();
  private readonly runs = new Counter({ name: 'orrery_runs_total', help: 'Runs by the status they reached', labelNames: ['status'], registers: [this.registry] });
  private readonly tasks = new Counter({ name: 'orrery_tasks_total', help: 'Subagent task results by kind and outcome', labelNames: ['kind', 'outcome'], registers: [this.registry] });
  private readonly verdicts = new Counter({ name: 'orrery_judge_verdicts_total', help: 'Judge verdicts acted on, by signal, deciding level and surface (round, loop, mcp)', labelNames: ['signal', 'level', 'surface'], registers: [this.registry] });
  private readonly judgeSeconds = new Histogram({
    name: 'orrery_judge_latency_seconds',
    help: 'Time a judgement took, by deciding level and surface (round, loop, mcp): the rules alone, or with the judge model',
    labelNames: ['level', 'surface'],
    buckets: [0.0001, 0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10],
    registers: [this.registry],
  });
  private readonly judgeTimeouts = new Counter({ name: 'orrery_judge_timeouts_total', help: 'Judge-model calls that timed out (counted as continue), by surface', labelNames: ['level', 'surface'], registers: [this.registry] });
  private readonly spendWarnings = new Counter({ name: 'orrery_budget_overrun_warnings_total', help: "Runs whose spend rate projected past their budget before the wrap-up threshold, by the dimension and the phase spending most", labelNames: ['dimension', 'phase'], registers: [this.registry] });
  private readonly resultVerdicts = new Counter({ name: 'orrery_result_verdicts_total', help: 'Verdicts on subagent results', labelNames: ['verdict'], registers: [this.registry] });
  private readonly escalations = new Counter({ name: 'orrery_escalations_total', help: 'Escalations by level', labelNames: ['level'], registers: [this.registry] });
  private readonly fallbacks = new Counter({ name: 'orrery_fallbacks_total', help: 'Fallbacks by what fell back', labelNames: ['what'], registers: [this.registry] });
  private readonly parseFailures = new Counter({ name: 'orrery_structured_output_failures_total', help: 'Structured-output parse failures reported by subagents', registers: [this.registry] });
  private readonly taskSeconds = new Histogram({ name: 'orrery_task_duration_seconds', help: 'Subagent task latency', labelNames: ['kind'], buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120], registers: [this.registry] });
  private readonly roundTripSeconds = new Histogram({
    name: 'orrery_task_round_trip_seconds',
    help: 'Dispatch by this replica to the result checked and merged into the ledger (queueing, the task, the completion event, the merge)',
    labelNames: ['kind'],
    buckets: [0.002, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });
  private readonly runSeconds = new Histogram({ name: 'orrery_run_duration_seconds', help: 'Run wall time to its end', labelNames: ['status'], buckets: [1, 5, 10, 30, 60, 120, 300, 600, 1800], registers: [this.registry] });
  private readonly costUsd = new Counter({ name: 'orrery_cost_usd_total', help: 'US dollars spent by finished runs (tokens by model, web searches per request)', labelNames: ['engine'], registers: [this.registry] });
  private readonly keyCostUsd = new Counter({
    name: 'orrery_key_cost_usd_total',
    help: "US dollars spent by finished runs, per API key (the key's hash, as runs record their owner), phase and model; `unattributed` is spend recorded before the bill",
    labelNames: ['key', 'phase', 'model'],
    registers: [this.registry],
  });
  private readonly keyCacheSavedUsd = new Counter({ name: 'orrery_key_cache_saved_usd_total', help: "US dollars the prompt cache saved finished runs against uncached prices, per API key (negative savings count as none)", labelNames: ['key'], registers: [this.registry] });
  private readonly tokens = new Counter({ name: 'orrery_tokens_total', help: 'Model tokens of finished runs by kind (input excludes cache reads and writes)', labelNames: ['engine', 'kind'], registers: [this.registry] });
  private readonly serverTools = new Counter({ name: 'orrery_server_tool_requests_total', help: 'Billed server tool requests of finished runs', labelNames: ['engine', 'tool'], registers: [this.registry] });

  private readonly judgeHealthy = new Gauge({ name: 'orrery_judge_healthy', help: "The judge model's latest health probe: 1 it answered a minimal verdict within a round decision's budget, 0 not", registers: [this.registry] });
  private readonly judgeProbeSeconds = new Gauge({ name: 'orrery_judge_probe_seconds', help: "How long the judge model's latest health probe took (its budget when it timed out)", registers: [this.registry] });
  private readonly stalled = new Counter({ name: 'orrery_jobs_stalled_total', help: 'Jobs BullMQ found stalled (their worker stopped renewing the lock) and moved back to wait, by queue', labelNames: ['queue'], registers: [this.registry] });
  /** How orrery_judge_enabled reads the judge switch: given by the judge's folder, which imports this one, not the reverse. */
  private judgeSwitchEnabled?: () => Promise<boolean>;

  constructor(dispatcher: TaskDispatcher, fleet: FleetGate, @Optional() @InjectQueue(WEBHOOK_QUEUE) webhooks?: Queue) {
    collectDefaultMetrics({ register: this.registry, prefix: 'orrery_coordinator_' });
    // Webhook deliveries that ran out of attempts stay in its queue's failed set.
    const queues = { [COORDINATOR_QUEUE]: dispatcher.coordinatorQueue, [SUBAGENT_QUEUE]: dispatcher.subagentQueue, ...(webhooks ? { [WEBHOOK_QUEUE]: webhooks } : {}) };
    // The latest anthropic-ratelimit-* headers any process of the deployment saw: limit and remaining per resource.
    new Gauge({
      name: 'orrery_anthropic_ratelimit',
      help: 'Messages API rate limits from the latest response headers (anthropic-ratelimit-<resource>-<limit|remaining>)',
      labelNames: ['resource', 'kind'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const [name, value] of Object.entries(await fleet.gate.latestHeaders().catch(() => ({})))) {
          const m = /^anthropic-ratelimit-(.+)-(limit|remaining)$/.exec(name);
          if (m && Number.isFinite(Number(value))) this.set({ resource: m[1]!, kind: m[2]! }, Number(value));
        }
      },
    });
    // The provider's breaker, as every process sees it in Redis.
    new Gauge({
      name: 'orrery_provider_breaker_open',
      help: "The model provider's breaker: 1 open or half-open (runs wait, one probe per cool-down), 0 closed; read from Redis at scrape",
      registers: [this.registry],
      async collect() {
        this.set((await fleet.gate.outage().catch(() => null)) ? 1 : 0);
      },
    });
    new Gauge({
      name: 'orrery_provider_breaker_failed_probes',
      help: "Probes that met the provider's outage again since the breaker opened (0 when closed)",
      registers: [this.registry],
      async collect() {
        this.set((await fleet.gate.outage().catch(() => null))?.failedProbes ?? 0);
      },
    });
    new Counter({
      name: 'orrery_provider_outages_total',
      help: "Times the model provider's breaker opened, deployment-wide (kept in Redis)",
      registers: [this.registry],
      async collect() {
        const seen = await fleet.gate.outagesSeen().catch(() => undefined);
        if (seen === undefined) return;
        this.reset();
        this.inc(seen);
      },
    });
    const judgeSwitchEnabled = () => this.judgeSwitchEnabled;
    new Gauge({
      name: 'orrery_judge_enabled',
      help: 'The judge switch (POST /v1/admin/judge): 1 model judging on, 0 off (rules only), read from Redis at scrape',
      registers: [this.registry],
      async collect() {
        const enabled = judgeSwitchEnabled();
        if (enabled) this.set((await enabled()) ? 1 : 0);
      },
    });
    new Gauge({
      name: 'orrery_queue_jobs',
      help: 'Jobs per queue and state',
      labelNames: ['queue', 'state'],
      registers: [this.registry],
      async collect() {
        for (const [name, q] of Object.entries(queues)) {
          const counts = await q.getJobCounts('waiting', 'active', 'delayed', 'failed', 'waiting-children', 'prioritized');
          for (const [state, n] of Object.entries(counts)) this.set({ queue: name, state }, n);
        }
      },
    });
  }

  readJudgeSwitchWith(enabled: () => Promise<boolean>): void {
    this.judgeSwitchEnabled = enabled;
  }

  judgeProbed(ok: boolean, seconds: number): void {
    this.judgeHealthy.set(ok ? 1 : 0);
    this.judgeProbeSeconds.set(seconds);
  }

  jobStalled(queue: string): void {
    this.stalled.inc({ queue });
  }

  runReached(status: string, seconds?: number): void {
    this.runs.inc({ status });
    if (seconds !== undefined) this.runSeconds.observe({ status }, seconds);
  }
  /** What a finished run consumed. */
  runConsumed(run: Pick<Run, 'engine' | 'usage' | 'owner'>): void {
    const u = run.usage;
    const engine = run.engine;
    this.costUsd.inc({ engine }, u.costUsd);
    for (const l of u.lines ?? []) this.keyCostUsd.inc({ key: run.owner, phase: l.phase ?? 'research', model: l.model }, l.costUsd);
    const bill = billOf(u);
    if (bill.unattributedUsd) this.keyCostUsd.inc({ key: run.owner, phase: 'unattributed', model: 'unattributed' }, bill.unattributedUsd);
    this.keyCacheSavedUsd.inc({ key: run.owner }, Math.max(0, bill.cache.savedUsd));
    this.tokens.inc({ engine, kind: 'input' }, u.inputTokens);
    this.tokens.inc({ engine, kind: 'output' }, u.outputTokens);
    this.tokens.inc({ engine, kind: 'cache_read' }, u.cacheReadTokens);
    this.tokens.inc({ engine, kind: 'cache_write' }, u.cacheWriteTokens);
    this.serverTools.inc({ engine, tool: 'web_search' }, u.webSearchRequests);
    this.serverTools.inc({ engine, tool: 'web_fetch' }, u.webFetchRequests);
  }
  taskOutcome(kind: string, outcome: string): void {
    this.tasks.inc({ kind, outcome });
  }
  taskDuration(kind: string, seconds: number): void {
    this.taskSeconds.observe({ kind }, seconds);
  }
  taskRoundTrip(kind: string, seconds: number): void {
    this.roundTripSeconds.observe({ kind }, seconds);
  }
  /** One judgement on a surface: the verdict acted on, its level, how long it took, whether the model timed out. */
  judged(surface: JudgeSurface, j: { signal: string; level: string; seconds?: number; timedOut?: boolean }): void {
    this.verdicts.inc({ signal: j.signal, level: j.level, surface });
    if (j.seconds !== undefined) this.judgeSeconds.observe({ level: j.level, surface }, j.seconds);
    if (j.timedOut) this.judgeTimeouts.inc({ level: 'L2', surface });
  }
  /** A decision a task reported, newly logged: the loop judge's judgements count on the `loop` surface. */
  taskDecisionLogged(d: EngineDecision): void {
    if (d.decisionType !== 'loop-judge' || d.signals['stale'] === true || typeof d.signals['signal'] !== 'string') return;
    const ms = d.signals['latencyMs'];
    this.judged('loop', { signal: d.signals['signal'], level: d.level, ...(typeof ms === 'number' ? { seconds: ms / 1000 } : {}), timedOut: d.signals['rule'] === 'judge-model-timeout' });
  }
  spendWarning(dimension: string, phase: string): void {
    this.spendWarnings.inc({ dimension, phase });
  }
  resultVerdict(verdict: string): void {
    this.resultVerdicts.inc({ verdict });
  }
  escalation(level: string): void {
    this.escalations.inc({ level });
  }
  fallback(what: string): void {
    this.fallbacks.inc({ what });
  }
  structuredOutputFailures(n: number): void {
    if (n > 0) this.parseFailures.inc(n);
  }

  onModuleDestroy(): void {
    this.registry.clear();
  }
}
