import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { COORDINATOR_QUEUE, SUBAGENT_QUEUE } from '@orrery/protocol';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { TaskDispatcher } from '../queues/task-dispatcher';

/**
 * Prometheus metrics of this coordinator replica. The verdict distribution is how a judge that always
 * says `continue` (or a result check that passes everything) gets caught.
 */
@Injectable()
export class MetricsService implements OnModuleDestroy {
  readonly registry = new Registry();
  private readonly runs = new Counter({ name: 'orrery_runs_total', help: 'Runs by the status they reached', labelNames: ['status'], registers: [this.registry] });
  private readonly tasks = new Counter({ name: 'orrery_tasks_total', help: 'Subagent task results by kind and outcome', labelNames: ['kind', 'outcome'], registers: [this.registry] });
  private readonly verdicts = new Counter({ name: 'orrery_judge_verdicts_total', help: 'Judge verdicts by signal and level', labelNames: ['signal', 'level'], registers: [this.registry] });
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

  constructor(dispatcher: TaskDispatcher) {
    collectDefaultMetrics({ register: this.registry, prefix: 'orrery_coordinator_' });
    const queues = { [COORDINATOR_QUEUE]: dispatcher.coordinatorQueue, [SUBAGENT_QUEUE]: dispatcher.subagentQueue };
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

  runReached(status: string, seconds?: number): void {
    this.runs.inc({ status });
    if (seconds !== undefined) this.runSeconds.observe({ status }, seconds);
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
  judgeVerdict(signal: string, level: string): void {
    this.verdicts.inc({ signal, level });
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
