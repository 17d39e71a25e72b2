import { OnQueueEvent, QueueEventsHost, QueueEventsListener } from '@nestjs/bullmq';
import { Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { SUBAGENT_QUEUE, TaskProgressSchema } from '@orrery/protocol';
import { createHash } from 'node:crypto';
import { DecisionLogService } from '../events/decision-log.service';
import { RunEventsService } from '../events/run-events.service';
import { runIdOfJob } from '../queues/job-ids';
import { taskDecision } from './task-decisions';

const roundOf = (jobId: string) => Number(/\.r(\d+)\.t\d+(\.c\d+)?$/.exec(jobId)?.[1] ?? 0);

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
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.queueEvents.on('error', (err) => this.logger.warn(`queue events: ${err.message}`));
  }

  @OnQueueEvent('progress')
  async onProgress({ jobId, data }: { jobId: string; data: unknown }): Promise<void> {
    const runId = runIdOfJob(jobId);
    const progress = TaskProgressSchema.safeParse(data);
    if (!runId || !progress.success) return;
    const { stage, message } = progress.data;
    const key = `progress:${jobId}:${createHash('sha1').update(`${stage}\n${message}`).digest('hex').slice(0, 12)}`;
    await this.events.append(runId, key, 'task.progress', { round: roundOf(jobId), taskId: jobId, stage, message }).catch((err) => this.logger.warn(err.message));
    // Decisions taken inside a task (fallback, idle-stop, redaction, caps, refusal, truncation, compaction) join the run's decision log.
    const reported = taskDecision(jobId, roundOf(jobId), progress.data);
    if (reported) await this.decisions.log(runId, reported.key, reported.decision).catch((err) => this.logger.warn(err.message));
  }

  /** Live progress only: results enter the ledger when their round step has checked them. */
  @OnQueueEvent('completed')
  async onCompleted({ jobId }: { jobId: string }): Promise<void> {
    const runId = runIdOfJob(jobId);
    if (!runId) return;
    await this.events.append(runId, `progress:${jobId}:done`, 'task.progress', { round: roundOf(jobId), taskId: jobId, stage: 'done', message: 'task finished' }).catch((err) => this.logger.warn(err.message));
  }
}
