import { OnQueueEvent, QueueEventsHost, QueueEventsListener } from '@nestjs/bullmq';
import { Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { SearchTaskSchema, SUBAGENT_QUEUE, TaskProgressSchema } from '@orrery/protocol';
import { createHash } from 'node:crypto';
import { DecisionLogService } from '../events/decision-log.service';
import { RunEventsService } from '../events/run-events.service';
import { ResultCheckService } from '../ledger/result-check.service';
import { MetricsService } from '../metrics/metrics.service';
import { DispatchedTasks } from '../queues/dispatched-tasks';
import { TaskDispatcher } from '../queues/task-dispatcher';
import { roundOfTask, runIdOfJob } from '../queues/job-ids';
import { logReportedDecisions } from '../events/task-decisions';

/**
 * Subagents report through BullMQ job progress; the coordinator republishes it as run events
 * including each task's completion, so progress is live.
 */
@QueueEventsListener(SUBAGENT_QUEUE)
export class TaskProgressListener extends QueueEventsHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(TaskProgressListener.name);
  constructor(
    private readonly events: RunEventsService,
    private readonly decisions: DecisionLogService,
    private readonly results: ResultCheckService,
    private readonly dispatcher: TaskDispatcher,
    private readonly dispatched: DispatchedTasks,
    private readonly metrics: MetricsService,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.queueEvents.on('error', (err) => this.logger.warn(`queue events: ${err.message}`));
  }

  /** A task whose worker stopped renewing its lock (killed, or its event loop held past the lock period). */
  @OnQueueEvent('stalled')
  onStalled(): void {
    this.metrics.jobStalled(SUBAGENT_QUEUE);
  }

  @OnQueueEvent('progress')
  async onProgress({ jobId, data }: { jobId: string; data: unknown }): Promise<void> {
    const runId = runIdOfJob(jobId);
    const progress = TaskProgressSchema.safeParse(data);
    if (!runId || !progress.success) return;
    const { stage, message } = progress.data;
    const key = `progress:${jobId}:${createHash('sha1').update(`${stage}\n${message}`).digest('hex').slice(0, 12)}`;
    await this.events.append(runId, key, 'task.progress', { round: roundOfTask(jobId), taskId: jobId, stage, message }).catch((err) => this.logger.warn(err.message));
    // Decisions taken inside a task (fallback, idle-stop, redaction, caps, refusal, truncation, compaction) join the run's decision log.
    await logReportedDecisions(this.decisions, runId, jobId, roundOfTask(jobId), [progress.data], (d) => this.metrics.taskDecisionLogged(d)).catch((err) => this.logger.warn(err.message));
  }

  /**
   * A search result is checked and merged as soon as it lands, so the ledger and the run's progress are
   * live; its round step, the flow's parent, checks it again (idempotently) before it decides anything.
   */
  @OnQueueEvent('completed')
  async onCompleted({ jobId, returnvalue }: { jobId: string; returnvalue: unknown }): Promise<void> {
    const runId = runIdOfJob(jobId);
    if (!runId) return;
    const round = roundOfTask(jobId);
    try {
      // The payload this process dispatched is in hand; another replica's is read back from its job.
      const mine = this.dispatched.get(jobId);
      const task = mine ? mine.task : round ? SearchTaskSchema.safeParse((await this.dispatcher.taskJob(jobId))?.data).data : undefined;
      // A search result's `task.completed` event says it is done; any other task gets a progress line.
      if (task?.kind === 'search') await this.results.check(runId, round, task, typeof returnvalue === 'string' ? JSON.parse(returnvalue) : returnvalue);
      else await this.events.append(runId, `progress:${jobId}:done`, 'task.progress', { round, taskId: jobId, stage: 'done', message: 'task finished' });
      if (mine) this.metrics.taskRoundTrip(mine.task.kind, (performance.now() - mine.at) / 1000);
      this.dispatched.delete(jobId);
    } catch (err) {
      this.logger.warn(`early check of ${jobId}: ${(err as Error).message}`);
    }
  }
}
