import { OnQueueEvent, QueueEventsHost, QueueEventsListener } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { SUBAGENT_QUEUE, TaskProgressSchema } from '@orrery/protocol';
import { createHash } from 'node:crypto';
import { DecisionLogService } from '../events/decision-log.service';
import { RunEventsService } from '../events/run-events.service';
import { ResultIntakeService } from '../ledger/result-intake.service';
import { runIdOfJob } from '../queues/job-ids';
import { taskDecision } from './task-decisions';

const roundOf = (jobId: string) => Number(/\.r(\d+)\.t\d+$/.exec(jobId)?.[1] ?? 0);

/**
 * Subagents report through BullMQ job progress; the coordinator republishes it as run events
 * and takes each search result into the ledger as soon as it completes.
 */
@QueueEventsListener(SUBAGENT_QUEUE)
export class TaskProgressListener extends QueueEventsHost {
  private readonly logger = new Logger(TaskProgressListener.name);
  constructor(
    private readonly events: RunEventsService,
    private readonly intake: ResultIntakeService,
    private readonly decisions: DecisionLogService,
  ) {
    super();
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

  @OnQueueEvent('completed')
  async onCompleted({ jobId, returnvalue }: { jobId: string; returnvalue: unknown }): Promise<void> {
    const runId = runIdOfJob(jobId);
    if (!runId || !roundOf(jobId)) return;
    await this.intake.accept(runId, roundOf(jobId), jobId, returnvalue).catch((err) => this.logger.warn(err.message));
  }
}
