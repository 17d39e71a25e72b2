import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { OnDemandThread } from '../threads/on-demand-thread';
import type { StoredPassage } from './passage-store';
import { type AnalysedPassage, analysePassages } from './store-query';

const SCRIPT = join(__dirname, 'analysis-thread.js');

/** Its heap: the language model, the stem cache (bounded) and one call's passages. */
export const ANALYSIS_THREAD_LIMITS = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16 } as const;

/**
 * Analysing a corpus fills the language model's token cache and the stem cache with the distinct words it meets
 * (30,000 passages of the 1M corpus: 34 MB of live heap, growing with every new word); in a thread that ends once
 * idle, that memory goes back to the system when the writes stop, instead of staying in the process for good.
 */
export const ANALYSIS_THREAD_IDLE_MS = 10_000;

let thread: OnDemandThread | null = null;

/**
 * Passages with their index terms, analysed in a thread of the process's own (one for the process, started on demand,
 * calls answered in order), so the event loop keeps turning and the process's heap does not keep what analysis
 * gathers. Without the compiled thread script (code run from its TypeScript source) they are analysed here.
 */
export function analyseInThread(passages: readonly StoredPassage[]): Promise<AnalysedPassage[]> {
  if (passages.length === 0) return Promise.resolve([]);
  if (!existsSync(SCRIPT)) return analysePassages(passages);
  thread ??= new OnDemandThread(SCRIPT, { name: 'passage analysis', resourceLimits: ANALYSIS_THREAD_LIMITS, idleMs: ANALYSIS_THREAD_IDLE_MS });
  return thread.call((id) => ({ id, passages })) as Promise<AnalysedPassage[]>;
}

/** Whether an analysis thread runs now (for tests: it ends once idle). */
export const analysisThreadRunning = (): boolean => thread?.running ?? false;
