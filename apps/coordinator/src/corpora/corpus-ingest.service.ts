import { InjectQueue } from '@nestjs/bullmq';
import { BadRequestException, ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { ConfiguredCorpusError, parseCorporaSpec } from '@orrery/corpus-engine';
import { EngineFactory } from '@orrery/engines';
import { liesWithin, sourceOf } from '@orrery/passages/ingest';
import { INGEST_QUEUE, type IngestProgress } from '@orrery/protocol';
import { CorpusBusyError, CorpusNameTakenError, IngestState, removeCorpus, startIngest } from '@orrery/runtime';
import type { Queue } from 'bullmq';
import { isAbsolute, resolve } from 'node:path';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';

/** Ingests corpora through the ingest queue, and answers whether a corpus may be researched yet. */
@Injectable()
export class CorpusIngest {
  constructor(
    private readonly state: IngestState,
    private readonly engines: EngineFactory,
    @InjectQueue(INGEST_QUEUE) private readonly queue: Queue,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  /**
   * Starts (re)ingesting `name` from `path`, which must lie in INGEST_ROOTS, else from the path `CORPORA` gives it
   * (the operator's own, trusted as it is). The worker checks again as it reads, with symlinks resolved. 409 when a
   * corpus of the same name in another letter case exists.
   */
  async start(name: string, path?: string): Promise<IngestProgress> {
    const configured = parseCorporaSpec(this.engines.config.CORPORA).find((c) => c.name === name)?.path;
    const from = path ?? configured;
    if (!from) throw new BadRequestException(`corpus ${name} is not in CORPORA; give its path`);
    if (!isAbsolute(from)) throw new BadRequestException('path must be absolute (a path on the workers’ disk)');
    const within = path === undefined ? [from] : this.allowedFolders(path);
    let source;
    try {
      source = sourceOf(from, within, path !== undefined);
    } catch (err) {
      throw new BadRequestException(`path: ${(err as Error).message}`);
    }
    let ingestId: string;
    try {
      ingestId = await startIngest(this.queue, this.state, name, source, this.config.INGEST_ATTEMPTS, await this.engines.researchableCorpora());
    } catch (err) {
      if (err instanceof CorpusBusyError) throw this.busy(err.ingest);
      if (err instanceof CorpusNameTakenError) throw new ConflictException({ statusCode: 409, error: 'Conflict', message: err.message, corpus: err.existing });
      throw err;
    }
    return (await this.state.get(name)) ?? { corpus: name, ingestId, status: 'planning', passages: 0, changed: 0, removed: 0, chunks: 0, chunksDone: 0, startedAt: new Date().toISOString() };
  }

  /** The folders a request's path may be read from: INGEST_ROOTS, which must hold it (as written; the worker resolves symlinks). */
  private allowedFolders(path: string): string[] {
    const roots = this.config.INGEST_ROOTS;
    if (!roots.length) throw new BadRequestException('path: this server reads no path a request names until its operator sets INGEST_ROOTS; ingest a corpus CORPORA names instead');
    const full = resolve(path);
    if (!roots.some((root) => liesWithin(full, root))) throw new BadRequestException('path: must lie in one of the folders INGEST_ROOTS names');
    return roots;
  }

  /** Deletes an ingested corpus (passages and ingest record): 404 when there is none, 409 while it ingests or for a configured one. */
  async remove(name: string): Promise<void> {
    let removed: boolean;
    try {
      removed = await removeCorpus({ drop: (corpus) => this.engines.corpora.dropStored(corpus) }, this.state, name);
    } catch (err) {
      if (err instanceof CorpusBusyError) throw this.busy(err.ingest);
      if (err instanceof ConfiguredCorpusError) throw new ConflictException(err.message);
      throw err;
    }
    if (!removed) throw new NotFoundException(`corpus ${name} was never ingested`);
  }

  progress(name: string): Promise<IngestProgress | undefined> {
    return this.state.get(name);
  }

  /**
   * 409 with the ingest's progress while the corpus is still being ingested (or its last ingest failed). Only a corpus
   * research reads from the passage store has an ingest to wait for: a configured one (built in, or in `CORPORA`) is
   * read from its files, so no ingest under its name, failed or not, changes what research on it reads.
   */
  async assertResearchable(name: string): Promise<void> {
    if (this.engines.corpusNames().includes(name)) return;
    const current = await this.state.get(name);
    if (current && current.status !== 'ready') throw this.busy(current);
  }

  private busy(p: IngestProgress): ConflictException {
    const message =
      p.status === 'failed'
        ? `corpus ${p.corpus}: its last ingest failed (${p.error ?? 'no reason recorded'}); ingest it again`
        : p.status === 'removing'
          ? `corpus ${p.corpus} is being removed`
          : `corpus ${p.corpus} is still ingesting: ${p.status}, ${p.chunksDone} of ${p.chunks} chunks done`;
    return new ConflictException({ statusCode: 409, error: 'Conflict', message, ingest: p });
  }
}
