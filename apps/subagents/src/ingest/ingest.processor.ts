import { InjectQueue } from '@nestjs/bullmq';
import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { IngestSourceError, planIngest, sourceFingerprint, sourcePassages } from '@orrery/passages/ingest';
import { keepCorpusStructure } from '@orrery/corpus-engine';
import { loadEngineConfig, readLimitsOf } from '@orrery/engines';
import { type PassageStore } from '@orrery/passages';
import { formatZodError, INGEST_QUEUE, type IngestJob, IngestJobSchema, MAX_SKIPPED_LISTED, type SkippedFile } from '@orrery/protocol';
import { ActiveJobs, IngestState, ingestJobIds, workerOn } from '@orrery/runtime';
import { type Job, Queue, UnrecoverableError, type Worker } from 'bullmq';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { SUBAGENT_CONFIG, type SubagentConfig } from '../config/subagent-config';
import { INGEST_STATE, PASSAGE_STORE } from './ingest.tokens';

/**
 * Indexes corpora into the passage store: a plan job reads the source and queues its new and changed passages as
 * chunk jobs, which any worker writes. A killed worker's job is redone after its lock lapses (writes are idempotent
 * by id, and a chunk counts once towards progress).
 */
@Injectable()
export class IngestProcessor implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(IngestProcessor.name);
  private readonly active = new ActiveJobs();
  private readonly readLimits = readLimitsOf(loadEngineConfig());
  private worker!: Worker;

  constructor(
    @Inject(PASSAGE_STORE) private readonly store: PassageStore,
    @Inject(INGEST_STATE) private readonly state: IngestState,
    @InjectQueue(INGEST_QUEUE) private readonly queue: Queue,
    @Inject(SUBAGENT_CONFIG) private readonly config: SubagentConfig,
  ) {}

  /** The worker, its options from the config, takes ingest jobs once every module is initialised. */
  onApplicationBootstrap(): void {
    const workerName = this.config.WORKER_NAME ?? `${hostname()}:${process.pid}`;
    this.worker = workerOn(this.queue, (job, token) => this.process(job, token), {
      name: `${workerName}:ingest`,
      concurrency: this.config.INGEST_CONCURRENCY,
      lockDuration: this.config.INGEST_LOCK_MS,
      stalledInterval: this.config.INGEST_LOCK_MS,
      maxStalledCount: 2,
    });
    this.worker.on('error', (err) => this.logger.warn(`ingest worker: ${err.message}`));
    this.logger.log(`worker ${workerName} consuming "${INGEST_QUEUE}" with concurrency ${this.config.INGEST_CONCURRENCY}`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.worker.close();
  }

  /** SIGTERM: finish the ingest jobs in hand within SHUTDOWN_GRACE_MS, else release them to other workers. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.active.drain(this.worker, this.config.SHUTDOWN_GRACE_MS, this.logger);
  }

  process(job: Job, token?: string): Promise<unknown> {
    return this.active.track(job, token, async () => {
      const parsed = IngestJobSchema.safeParse(job.data);
      if (!parsed.success) {
        const message = `invalid ingest job: ${formatZodError(parsed.error)}`;
        const { corpus, ingestId } = (job.data ?? {}) as { corpus?: unknown; ingestId?: unknown };
        if (typeof corpus === 'string' && typeof ingestId === 'string') await this.state.fail(corpus, ingestId, message).catch(() => undefined);
        throw new UnrecoverableError(message);
      }
      const data = parsed.data;
      try {
        if (data.kind === 'structure') return await this.structure(data);
        return data.kind === 'plan' ? await this.plan(data, job) : await this.chunk(data);
      } catch (caught) {
        const err = caught instanceof IngestSourceError ? new UnrecoverableError(caught.message) : (caught as Error);
        const last = err instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
        const step = data.kind === 'chunk' ? `chunk ${data.chunk}` : data.kind;
        // Every key may read the recorded error: a source's error says where and what (never its path or text), any
        // other names only its kind. The log keeps the rest.
        const detail = caught instanceof IngestSourceError ? caught.detail : (caught as Error).message;
        const from = data.kind === 'plan' ? ` from ${data.source.path}` : '';
        this.logger.warn(`ingest ${data.ingestId} of ${data.corpus}${from}, ${step}${last ? '' : ' (will retry)'}: ${detail}`);
        const recorded = caught instanceof IngestSourceError ? caught.message : `failed (${(caught as Error).name}; the worker's log has the reason)`;
        // The structure comes after every passage is written: a corpus is answerable without it (its first reader
        // computes it), so a structure that cannot be kept leaves the corpus ready, not failed.
        if (last) await (data.kind === 'structure' ? this.state.ready(data.corpus, data.planRun) : this.state.fail(data.corpus, data.ingestId, `${step}: ${recorded}`)).catch(() => undefined);
        throw err;
      }
    });
  }

  private async plan(job: Extract<IngestJob, { kind: 'plan' }>, bullJob: Job) {
    const { corpus, ingestId } = job;
    const planRun = `${ingestId}.${randomBytes(4).toString('hex')}`;
    await this.state.planning(corpus, ingestId, planRun);
    // Taken before reading: a source that changes while it is read no longer matches it, so the next ingest reads it again.
    const fingerprint = sourceFingerprint(job.source, this.readLimits);
    if (fingerprint && fingerprint === (await this.store.sourceFingerprint(corpus))) {
      const { passages } = await this.store.stats(corpus);
      if (passages > 0) {
        // Its structure was kept when it was written: ready at once.
        if (await this.state.planned(corpus, ingestId, planRun, { passages, changed: 0, removed: 0, chunks: 0 })) await this.state.ready(corpus, planRun);
        this.logger.log(`ingest ${ingestId} of ${corpus}: source unchanged since its last ingest (${passages} passages), nothing read`);
        return { passages, changed: 0, removed: 0, chunks: 0, unchanged: true };
      }
    }
    // From the first write on, the store no longer holds what the old fingerprint describes.
    await this.store.setSourceFingerprint(corpus, null);
    const skipped: SkippedFile[] = [];
    let skippedFiles = 0;
    const onSkip = (file: SkippedFile): void => {
      this.logger.warn(`ingest ${ingestId} of ${corpus} from ${job.source.path}: skipped ${file.file}: ${file.reason}`);
      if (skippedFiles++ < MAX_SKIPPED_LISTED) skipped.push(file);
    };
    const plan = await planIngest(sourcePassages(job.source, this.readLimits, onSkip), this.store, corpus, this.config.INGEST_CHUNK_PASSAGES, async (chunk, passages) => {
      const payload: IngestJob = { kind: 'chunk', corpus, ingestId, planRun, chunk, passages, ...(fingerprint ? { fingerprint } : {}) };
      await this.queue.add('chunk', payload, {
        jobId: ingestJobIds.chunk(corpus, planRun, chunk),
        attempts: this.config.INGEST_ATTEMPTS,
        backoff: { type: 'exponential', delay: 1000 },
        // The payload is the corpus's text: it leaves Redis once written.
        removeOnComplete: true,
        removeOnFail: { count: 100 },
      });
      // Bull Board shows it on the plan job; best effort, like task progress.
      void bullJob.updateProgress({ chunksQueued: chunk + 1 }).catch(() => undefined);
    });
    // No chunks, or all of them written before the plan was recorded: the plan completes the ingest.
    if (await this.state.planned(corpus, ingestId, planRun, { ...plan, ...(skippedFiles ? { skipped, skippedFiles } : {}) })) await this.completed(corpus, ingestId, planRun, fingerprint);
    this.logger.log(`ingest ${ingestId} of ${corpus}: ${plan.passages} passages, ${plan.changed} to index in ${plan.chunks} chunk(s), ${plan.removed} removed, ${skippedFiles} file(s) skipped`);
    return { ...plan, skippedFiles };
  }

  /**
   * The store holds the whole source (whichever job finished it): its fingerprint is recorded and the structure job
   * queued, which marks the corpus ready. A question asked before then would compute the structure itself, in each
   * process it reaches, while the job computes the same (a 10k corpus's first question took 13 s instead of 5 s).
   */
  private async completed(corpus: string, ingestId: string, planRun: string, fingerprint: string | null): Promise<void> {
    if (fingerprint) await this.store.setSourceFingerprint(corpus, fingerprint);
    const payload: IngestJob = { kind: 'structure', corpus, ingestId, planRun };
    await this.queue.add('structure', payload, {
      jobId: ingestJobIds.structure(corpus, planRun),
      attempts: this.config.INGEST_ATTEMPTS,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: { count: 1000 },
      removeOnFail: { count: 100 },
    });
  }

  /** The corpus's partition, computed off the event loop and kept for the generation the ingest left (`keepCorpusStructure`); then it is ready. */
  private async structure(job: Extract<IngestJob, { kind: 'structure' }>) {
    await keepCorpusStructure(this.store, job.corpus);
    await this.state.ready(job.corpus, job.planRun);
    return { corpus: job.corpus };
  }

  private async chunk(job: Extract<IngestJob, { kind: 'chunk' }>) {
    await this.store.upsert(job.corpus, job.passages);
    if (await this.state.chunkDone(job.corpus, job.planRun, job.chunk)) {
      await this.completed(job.corpus, job.ingestId, job.planRun, job.fingerprint ?? null);
      this.logger.log(`ingest ${job.ingestId} of ${job.corpus}: every passage written; its structure next`);
    }
    return { chunk: job.chunk, passages: job.passages.length, workerPid: process.pid };
  }
}
