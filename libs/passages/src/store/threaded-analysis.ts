import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { OnDemandThread } from '../threads/on-demand-thread';
import type { StoredPassage } from './passage-store';
import { type AnalysedPassage, analysePassages } from './store-query';

const SCRIPT = join(__dirname, 'analysis-thread.js');

/** Its heap: the language model, the stem cache (bounded) and one call's passages. */
export const ANALYSIS_THREAD_LIMITS = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16 } as const;

/** Ended after this long idle, so what analysis gathered (token and stem caches) goes back to the system once writes stop. */
export const ANALYSIS_THREAD_IDLE_MS = 10_000;

/**
 * Analysis for a store that has no thread of its own (PostgreSQL), on two cores: a write is analysed in a thread while
 * that thread is idle, and in the caller while it works on another, so an ingest's two chunks are analysed at once.
 * Without the compiled thread script (code run from its TypeScript source) every write is analysed in the caller.
 */
export class TwoCoreAnalysis {
  private readonly thread = existsSync(SCRIPT)
    ? new OnDemandThread(SCRIPT, { name: 'passage analysis', resourceLimits: ANALYSIS_THREAD_LIMITS, idleMs: ANALYSIS_THREAD_IDLE_MS })
    : null;

  analyse(passages: readonly StoredPassage[]): Promise<AnalysedPassage[]> {
    if (passages.length === 0) return Promise.resolve([]);
    if (!this.thread || this.thread.busy) return analysePassages(passages);
    return this.thread.call((id) => ({ id, passages })) as Promise<AnalysedPassage[]>;
  }

  /** Whether the thread runs now (it ends once idle). */
  get threadRunning(): boolean {
    return this.thread?.running ?? false;
  }

  /** Ends the thread unless it is analysing. */
  release(): void {
    this.thread?.endIdle();
  }

  close(): Promise<void> {
    return this.thread?.close() ?? Promise.resolve();
  }
}
