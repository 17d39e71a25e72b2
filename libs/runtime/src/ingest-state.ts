import { type IngestProgress, IngestProgressSchema, LONE_SURROGATE, type SkippedFile } from '@orrery/protocol';
import type { RedisClient } from './redis-connection';

/**
 * The state's scripts decode it with Redis's cjson, which refuses a lone surrogate; an error message can hold one
 * (JSON.parse quotes a bad line cut through an emoji), so it is stored with U+FFFD in its place.
 */
const wellFormed = (text: string): string => text.replace(new RegExp(LONE_SURROGATE.source, 'g'), '\ufffd');

/**
 * A chunk's completion is recorded in its plan run's set, so a redone chunk counts once. Returns 1 once every chunk is
 * written (the corpus then gets its structure, and is ready after that: \`READY_IF_CURRENT\`).
 */
const CHUNK_DONE = `
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local s = cjson.decode(raw)
if s.planRun ~= ARGV[1] or s.status ~= 'ingesting' then return 0 end
if redis.call('SCARD', KEYS[2]) >= s.chunks then return 1 end
return 0`;

/**
 * Replaces the state while it still describes this ingest (a newer one started since wins). Returns 2 when the state
 * stored is an ingest whose chunks are all written already (they can finish before their plan is recorded), else 1,
 * or 0 when a newer ingest holds the corpus.
 */
const UPDATE_IF_CURRENT = `
local raw = redis.call('GET', KEYS[1])
if raw and cjson.decode(raw).ingestId ~= ARGV[1] then return 0 end
local s = cjson.decode(ARGV[2])
redis.call('SET', KEYS[1], ARGV[2])
if s.status == 'ingesting' and redis.call('SCARD', KEYS[2]) >= s.chunks then return 2 end
return 1`;

/** Marks the corpus ready while its state is still this plan run's, with every chunk written. */
const READY_IF_CURRENT = `
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local s = cjson.decode(raw)
if s.planRun ~= ARGV[1] or s.status ~= 'ingesting' or redis.call('SCARD', KEYS[2]) < s.chunks then return 0 end
s.status = 'ready'
s.finishedAt = ARGV[2]
redis.call('SET', KEYS[1], cjson.encode(s))
return 1`;

/**
 * Sets the state to ARGV[1] (for ARGV[2] ms) unless the corpus is busy: an ingest planning or running, or a removal
 * under way. Returns the busy state, or nothing when it was set. One script, so an ingest and a removal that start at
 * once cannot both pass the check (the removal would delete what the ingest writes).
 */
const CLAIM_UNLESS_BUSY = `
local raw = redis.call('GET', KEYS[1])
if raw then
  local status = cjson.decode(raw).status
  if status == 'planning' or status == 'ingesting' or status == 'removing' then return raw end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false`;

/** Completed-chunk sets outlive their ingest by this long (the state itself stays: it describes the corpus). */
const DONE_SET_TTL_MS = 7 * 24 * 3600 * 1000;

export interface IngestPlanFigures {
  passages: number;
  changed: number;
  removed: number;
  chunks: number;
  /** Files of a folder the plan left out, the first MAX_SKIPPED_LISTED of `skippedFiles`. Never empty: cjson would store [] as {}. */
  skipped?: SkippedFile[];
  skippedFiles?: number;
}

/**
 * Each corpus's last ingest in Redis (`<prefix>:corpus:<corpus>:ingest`, JSON; a plan run's completed chunks in
 * `…:ingest:<planRun>:done`): written by whoever starts an ingest and by the ingest jobs, read by the coordinator (409
 * while ingesting) and the CLI. The `corpus` key space is no queue's: BullMQ keeps a queue's own keys under
 * `<prefix>:<queue>:`, so under `<prefix>:ingest:` a corpus named `events` or `wait` would be the ingest queue's.
 */
export class IngestState {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  /** The `{corpus}` hash tag keeps a corpus's keys in one cluster slot, for the scripts that touch both. */
  private key(corpus: string): string {
    return `${this.prefix}:corpus:{${corpus}}:ingest`;
  }
  private doneKey(corpus: string, planRun: string): string {
    return `${this.prefix}:corpus:{${corpus}}:ingest:${planRun}:done`;
  }

  /**
   * A new ingest of the corpus is planning; `ttlMs` lets the mark lapse if its plan job was never queued. Refused while
   * another ingest or a removal is under way: that one's state is returned instead.
   */
  async begin(corpus: string, ingestId: string, ttlMs: number): Promise<IngestProgress | undefined> {
    return this.claim(corpus, this.fresh(corpus, ingestId), ttlMs);
  }

  /**
   * The corpus is being removed (`ttlMs` lets the mark lapse if the remover dies): refused while an ingest or another
   * removal is under way (`busy`); else `previous` is the state it replaced, for `endRemoval` to put back on failure.
   */
  async beginRemoval(corpus: string, ttlMs: number): Promise<{ busy: IngestProgress } | { previous: IngestProgress | undefined }> {
    const previous = await this.get(corpus);
    const removing: IngestProgress = { ...this.fresh(corpus, previous?.ingestId ?? `removal-${Date.now().toString(36)}`), status: 'removing' };
    const busy = await this.claim(corpus, removing, ttlMs);
    return busy ? { busy } : { previous };
  }

  /** Puts back the state a failed removal replaced (nothing, if there was none), while the removal's mark is still there. */
  async endRemoval(corpus: string, previous: IngestProgress | undefined): Promise<void> {
    if ((await this.get(corpus))?.status !== 'removing') return;
    if (previous) await this.redis.set(this.key(corpus), JSON.stringify(previous));
    else await this.forget(corpus);
  }

  private async claim(corpus: string, state: IngestProgress, ttlMs: number): Promise<IngestProgress | undefined> {
    const busy = await this.redis.eval(CLAIM_UNLESS_BUSY, 1, this.key(corpus), JSON.stringify(state), String(ttlMs));
    if (typeof busy !== 'string') return undefined;
    const parsed = IngestProgressSchema.safeParse(JSON.parse(busy));
    return parsed.success ? parsed.data : { ...state, status: 'planning' };
  }

  /** A worker runs the ingest's plan (again, after a killed one: only this run's chunks count from now). */
  async planning(corpus: string, ingestId: string, planRun: string): Promise<void> {
    const current = await this.get(corpus);
    const state: IngestProgress = { ...this.fresh(corpus, ingestId), planRun, ...(current?.ingestId === ingestId ? { startedAt: current.startedAt } : {}) };
    await this.update(corpus, ingestId, '', state);
  }

  /** The plan is queued: \`chunks\` jobs to go. True when none is left (none, or all written already). */
  async planned(corpus: string, ingestId: string, planRun: string, plan: IngestPlanFigures): Promise<boolean> {
    const current = await this.get(corpus);
    const state: IngestProgress = { ...this.fresh(corpus, ingestId), planRun, status: 'ingesting', ...plan, ...(current?.ingestId === ingestId ? { startedAt: current.startedAt } : {}) };
    return (await this.update(corpus, ingestId, planRun, state)) === 2;
  }

  /** Records a chunk as written; true once every chunk of the plan run is. */
  async chunkDone(corpus: string, planRun: string, chunk: number): Promise<boolean> {
    const r = await this.redis.eval(CHUNK_DONE, 2, this.key(corpus), this.doneKey(corpus, planRun), planRun, String(chunk), String(DONE_SET_TTL_MS));
    return Number(r) === 1;
  }

  /**
   * The corpus is ready: every chunk of this plan run is written and what the store keeps of its structure is computed
   * (or could not be: a reader computes it then). False when a newer ingest, or a removal, holds the corpus.
   */
  async ready(corpus: string, planRun: string): Promise<boolean> {
    const r = await this.redis.eval(READY_IF_CURRENT, 2, this.key(corpus), this.doneKey(corpus, planRun), planRun, new Date().toISOString());
    return Number(r) === 1;
  }

  async fail(corpus: string, ingestId: string, error: string): Promise<void> {
    const current = await this.get(corpus);
    if (!current || current.ingestId !== ingestId) return;
    await this.update(corpus, ingestId, '', { ...current, status: 'failed', error: wellFormed(error.slice(0, 1000)), finishedAt: new Date().toISOString() });
  }

  /** Forgets the corpus's last ingest (the corpus was removed); true when there was one. */
  async forget(corpus: string): Promise<boolean> {
    return (await this.redis.del(this.key(corpus))) > 0;
  }

  /** The corpus's last ingest with its chunks done so far; undefined when it was never ingested. */
  async get(corpus: string): Promise<IngestProgress | undefined> {
    const raw = await this.redis.get(this.key(corpus));
    if (!raw) return undefined;
    const parsed = IngestProgressSchema.safeParse(JSON.parse(raw));
    if (!parsed.success) return undefined;
    const state = parsed.data;
    if (state.status === 'ingesting' && state.planRun) state.chunksDone = Math.min(state.chunks, await this.redis.scard(this.doneKey(corpus, state.planRun)));
    else if (state.status === 'ready') state.chunksDone = state.chunks;
    return state;
  }

  private fresh(corpus: string, ingestId: string): IngestProgress {
    return { corpus, ingestId, status: 'planning', passages: 0, changed: 0, removed: 0, chunks: 0, chunksDone: 0, startedAt: new Date().toISOString() };
  }

  private async update(corpus: string, ingestId: string, planRun: string, state: IngestProgress): Promise<number> {
    return Number(await this.redis.eval(UPDATE_IF_CURRENT, 2, this.key(corpus), this.doneKey(corpus, planRun || 'none'), ingestId, JSON.stringify(state)));
  }
}
