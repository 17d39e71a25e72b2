import { Processor, WorkerHost } from '@nestjs/bullmq';
import { type BeforeApplicationShutdown, Logger } from '@nestjs/common';
import { EngineFactory } from '@orrery/engines';
import { type Run, TERMINAL_RUN_STATUSES, WATCH_QUEUE, type Watch, type WatchChanges, WatchTickSchema } from '@orrery/protocol';
import { type Job, UnrecoverableError } from 'bullmq';
import type { Principal } from '../auth/principal';
import { LedgerStore } from '../ledger/ledger.store';
import { RunStore } from '../runs/run-store';
import { RunsService } from '../runs/runs.service';
import { WebhookNotifier } from '../webhooks/webhook-notifier.service';
import { changedAnything, type SourceNow, watchChanges } from './watch-changes';
import { WatchStore } from './watch-store';

const POLL_MS = 500;

/**
 * One run of a watch per scheduler job: the question is asked as its owner asks it (admitted by the owner's quotas),
 * the job waits for the run to end, compares its report with the watch's last done run, records what changed and, when
 * something did, sends `watch.changed`. The run's id is written to the job before the wait, so a job retried after a
 * crash waits on the same run rather than starting a second one.
 */
@Processor(WATCH_QUEUE, { concurrency: 4 })
export class WatchRunsProcessor extends WorkerHost implements BeforeApplicationShutdown {
  private readonly logger = new Logger(WatchRunsProcessor.name);
  private closing = false;
  constructor(
    private readonly watches: WatchStore,
    private readonly runs: RunsService,
    private readonly runStore: RunStore,
    private readonly ledger: LedgerStore,
    private readonly engines: EngineFactory,
    private readonly webhooks: WebhookNotifier,
  ) {
    super();
  }

  /** A job still waiting on its run lets go: retried, by this process or another, it waits on the same run. */
  beforeApplicationShutdown(): void {
    this.closing = true;
  }

  async process(job: Job): Promise<void> {
    const tick = WatchTickSchema.safeParse(job.data);
    if (!tick.success) throw new UnrecoverableError(`invalid watch job: ${tick.error.message}`);
    const watch = await this.watches.get(tick.data.watchId);
    if (!watch || (watch.status === 'paused' && !tick.data.runId)) return;
    const owner: Principal = { id: watch.owner, admin: watch.ownerAdmin };
    let runId = tick.data.runId;
    if (!runId) {
      const run = await this.runs.create(owner, { topic: watch.question, ...(watch.corpus ? { corpus: watch.corpus } : {}), ...(watch.budget ? { budget: watch.budget } : {}) });
      runId = run.id;
      await job.updateData({ ...tick.data, runId });
      await this.watches.mutate(watch.id, (w) => ({ ...w, runs: [...w.runs, { runId: run.id, at: run.createdAt, status: run.status, changed: false }] }));
    }
    const run = await this.ended(runId, job);
    const last = watch.runs.filter((r) => r.runId !== runId && r.status === 'done').at(-1);
    let changes: WatchChanges | undefined;
    if (run.status === 'done' && last) {
      const [before, now] = await Promise.all([this.runs.report(owner, last.runId).catch(() => undefined), this.runs.report(owner, runId)]);
      if (before && now) changes = await watchChanges(before, now, this.sourceNow(run, watch));
    }
    const changed = changes ? changedAnything(changes) : false;
    await this.watches.mutate(watch.id, (w) => ({ ...w, runs: w.runs.map((r) => (r.runId === runId ? { ...r, status: run.status, changed, ...(changes ? { changes } : {}) } : r)) }));
    if (changed && watch.webhook) await this.webhooks.notifyWatch(run, { id: watch.id, question: watch.question, webhook: watch.webhook }, changes!);
    this.logger.log(`watch ${watch.id}: run ${runId} ${run.status}${changes ? (changed ? ', changed' : ', unchanged') : ''}`);
  }

  /** The run once it ended; the job's lock is renewed by the worker while it waits. */
  private async ended(runId: string, job: Job): Promise<Run> {
    for (;;) {
      const run = await this.runStore.get(runId);
      if (!run) throw new UnrecoverableError(`watch job ${job.id}: run ${runId} is gone`);
      if (TERMINAL_RUN_STATUSES.includes(run.status)) return run;
      if (this.closing) throw new Error(`watch job ${job.id}: the coordinator is shutting down before run ${runId} ended`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /**
   * A cited source as it is now: a corpus passage from the corpus (gone if the corpus no longer has it); a web page
   * from this run's ledger when it read the page again, else unknown.
   */
  private sourceNow(run: Run, watch: Watch): SourceNow {
    return async (id) => {
      if (run.corpus) {
        const index = await this.engines.passagesFor(run.corpus, watch.question).catch(() => undefined);
        const passage = index?.get(id);
        if (passage) return { text: passage.text };
        if (!id.startsWith('web-')) return index ? undefined : 'unknown';
      }
      const [source] = await this.ledger.sources(run.id, [id]);
      return source?.text !== undefined ? { text: source.text } : 'unknown';
    };
  }
}
