import { INGEST_QUEUE, type IngestProgress, type IngestSource } from '@orrery/protocol';
import { bullConnection, closeBullConnection, connectRedis, CorpusBusyError, IngestState, queuePrefix, type RedisLocation, startIngest } from '@orrery/runtime';
import { Queue } from 'bullmq';
import { forTerminal } from '../terminal/terminal-text';

const POLL_MS = 200;

export function describeIngest(p: IngestProgress): string {
  if (p.status === 'planning') return `${p.corpus}: planning (reading the source, comparing content hashes)`;
  const skipped = p.skippedFiles ? ` · ${p.skippedFiles} file(s) skipped` : '';
  return `${p.corpus}: ${p.status} · ${p.chunksDone}/${p.chunks} chunks · ${p.changed} of ${p.passages} passages to index · ${p.removed} removed${skipped}`;
}

/** One line per file the ingest left out, and why. */
export function describeSkipped(p: IngestProgress): string[] {
  const lines = (p.skipped ?? []).map((s) => `skipped ${s.file}: ${s.reason}`);
  const unlisted = (p.skippedFiles ?? 0) - lines.length;
  return unlisted > 0 ? [...lines, `…and ${unlisted} more (the worker's log lists them)`] : lines;
}

export interface IngestRequest {
  location: RedisLocation;
  prefix: string;
  corpus: string;
  source: IngestSource;
  attempts: number;
  /** The corpora that exist (configured, or with passages in the store): none may be shadowed by a name in another letter case. */
  known?: readonly string[];
  /** Progress lines (stderr). */
  log: (line: string) => void;
}

/**
 * Starts an ingest through the ingest queue (some worker must consume it) and waits for it to end, logging its progress.
 * While another ingest of the corpus (another terminal's question on the same file) or its removal is under way, waits
 * for that to end first: then this one finds the source unchanged, or reads what changed since.
 */
export async function ingestAndWait(req: IngestRequest): Promise<{ ingestId: string; progress: IngestProgress }> {
  const redis = connectRedis(req.location, { maxRetriesPerRequest: 3 });
  const connection = bullConnection(req.location);
  const queue = new Queue(INGEST_QUEUE, { connection, prefix: queuePrefix(req.prefix) });
  try {
    const state = new IngestState(redis, req.prefix);
    const ingestId = await startWhenFree(req, queue, state);
    req.log(forTerminal(`[orrery] ingest ${ingestId} of ${req.corpus} from ${req.source.path} (${req.source.kind})\n`));
    let last = '';
    for (;;) {
      const progress = await state.get(req.corpus);
      if (!progress || progress.ingestId !== ingestId) throw new Error(`the ingest of ${req.corpus} was replaced by another one (${progress?.ingestId ?? 'none'})`);
      const line = describeIngest(progress);
      if (line !== last) req.log(forTerminal(`[orrery] ${line}\n`));
      last = line;
      if (progress.status === 'ready' || progress.status === 'failed') {
        for (const skipped of describeSkipped(progress)) req.log(forTerminal(`[orrery] ${skipped}\n`));
        return { ingestId, progress };
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } finally {
    await queue.close().catch(() => undefined);
    closeBullConnection(connection);
    redis.disconnect();
  }
}

async function startWhenFree(req: IngestRequest, queue: Queue, state: IngestState): Promise<string> {
  let waiting = '';
  for (;;) {
    try {
      return await startIngest(queue, state, req.corpus, req.source, req.attempts, req.known);
    } catch (err) {
      if (!(err instanceof CorpusBusyError)) throw err;
      if (err.ingest.ingestId !== waiting) req.log(forTerminal(`[orrery] waiting: ${err.message}\n`));
      waiting = err.ingest.ingestId;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
}
