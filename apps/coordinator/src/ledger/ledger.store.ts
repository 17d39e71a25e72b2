import { Inject, Injectable } from '@nestjs/common';
import { type Finding, FindingSchema, type Source, SourceSchema, type SubagentReport, SubagentReportSchema } from '@orrery/protocol';
import type { RedisClient } from '@orrery/runtime';
import { z } from 'zod';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { APPEND_ONCE_LUA, type PreparedEvent } from '../events/run-events.service';
import type { BroughtFinding } from '../coverage/round-figures';
import { type LuaScript, luaScript } from '../redis/lua-script';
import { RunKeys } from '../redis/run-keys';
import { REDIS } from '../redis/redis.module';

/**
 * One task's intake in one atomic call: its verdict's decision event, then (if it brought anything)
 * the merge of its sources and findings and its `task.completed` event with the merge's figures.
 * Keyed by task id: a task delivered twice (at-least-once) is merged once, and the second intake
 * reports the first one's figures and writes no event. The same finding (same source, same quote) from
 * two subtopics' tasks is kept under the lower subtopic id, so the ledger (and the coverage figures and
 * refinement read from it) does not depend on which result landed first. Each finding's subtopic id is
 * kept in a hash of its own for that comparison: the script never decodes a finding, because text from a
 * page can hold a lone surrogate, which Redis's cjson refuses. Every subtopic that brought a finding is recorded
 * beside it (finding-evidence), so the finding is evidence for each of them, not only for the one it is kept under.
 *
 * KEYS: results, sources, findings, events, event-keys, finding-subtopics, finding-evidence
 * ARGV: taskId, maxlen, ttl, verdictKey, verdictJson, merge (0|1), completedKey, completedJson,
 *       nSources, (id, json)…, nFindings, (id, subtopicId, json)…
 */
const INTAKE_SCRIPT = `${APPEND_ONCE_LUA}
local logged = append_once(KEYS[4], KEYS[5], ARGV[4], ARGV[5], ARGV[2], ARGV[3]) and 1 or 0
if ARGV[6] == '0' then return cjson.encode({ logged = logged, newSources = 0, newFindings = 0 }) end
local existing = redis.call('HGET', KEYS[1], ARGV[1])
if existing then
  local rec = cjson.decode(existing)
  return cjson.encode({ logged = logged, newSources = rec.newSources, newFindings = rec.newFindings })
end
local ns, nf = 0, 0
local i = 9
local count = tonumber(ARGV[i]); i = i + 1
for j = 1, count do ns = ns + redis.call('HSETNX', KEYS[2], ARGV[i], ARGV[i + 1]); i = i + 2 end
count = tonumber(ARGV[i]); i = i + 1
for j = 1, count do
  local id, subtopic, json = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  redis.call('SADD', KEYS[7], subtopic .. ' ' .. id)
  if redis.call('HSETNX', KEYS[3], id, json) == 1 then
    nf = nf + 1
    redis.call('HSET', KEYS[6], id, subtopic)
  elseif subtopic < (redis.call('HGET', KEYS[6], id) or '') then
    redis.call('HSET', KEYS[3], id, json)
    redis.call('HSET', KEYS[6], id, subtopic)
  end
  i = i + 3
end
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode({ newSources = ns, newFindings = nf }))
for _, k in ipairs({ 1, 2, 3, 6, 7 }) do if redis.call('TTL', KEYS[k]) == -1 then redis.call('EXPIRE', KEYS[k], ARGV[3]) end end
local completed = cjson.decode(ARGV[8])
completed.newSources = ns
append_once(KEYS[4], KEYS[5], ARGV[7], cjson.encode(completed), ARGV[2], ARGV[3])
return cjson.encode({ logged = logged, newSources = ns, newFindings = nf })`;

const IntakeRecordSchema = z.object({ logged: z.number(), newSources: z.number(), newFindings: z.number() });

export interface IntakeRecord {
  /** false when the verdict had been logged already (a second delivery or a second check). */
  logged: boolean;
  newSources: number;
  newFindings: number;
}

/** What a passing result brings: its sources and findings, and the event that announces them. */
export interface MergeInput {
  sources: Source[];
  findings: Finding[];
  /** Its `newSources` is set by the script to the merge's own count. */
  completed: PreparedEvent;
}

const KeptReportSchema = z.strictObject({ taskId: z.string(), subtopicId: z.string().optional(), report: SubagentReportSchema });
export type KeptReport = z.infer<typeof KeptReportSchema>;

/** The run's evidence ledger: every source retrieved and every finding accepted, deduplicated. */
@Injectable()
export class LedgerStore {
  private readonly intakeScript: LuaScript;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
    private readonly keys: RunKeys,
  ) {
    this.intakeScript = luaScript(redis, 'orreryResultIntake', INTAKE_SCRIPT);
  }

  async intake(runId: string, taskId: string, verdict: PreparedEvent, merge: MergeInput | null): Promise<IntakeRecord> {
    const args: (string | number)[] = [taskId, this.config.EVENTS_MAXLEN, this.config.UNFINISHED_RUN_TTL_SECONDS, verdict.key, verdict.json];
    if (merge) {
      args.push(1, merge.completed.key, merge.completed.json, merge.sources.length);
      for (const s of merge.sources) args.push(s.id, JSON.stringify(s));
      args.push(merge.findings.length);
      for (const f of merge.findings) args.push(f.id, f.subtopicId, JSON.stringify(f));
    } else {
      args.push(0);
    }
    const k = this.keys;
    const raw = await this.intakeScript([k.results(runId), k.sources(runId), k.findings(runId), k.events(runId), k.eventKeys(runId), k.findingSubtopics(runId), k.findingEvidence(runId)], args);
    const rec = IntakeRecordSchema.parse(JSON.parse(String(raw)));
    return { logged: rec.logged === 1, newSources: rec.newSources, newFindings: rec.newFindings };
  }

  /**
   * Keeps a researcher's condensed report for the lead who writes, keyed by task id: written before the task's intake,
   * so a task whose findings are in the ledger has its report there too, and a second delivery writes the same value.
   */
  async keepReport(runId: string, taskId: string, subtopicId: string | undefined, report: SubagentReport): Promise<void> {
    const key = this.keys.taskReports(runId);
    await this.redis.multi().hset(key, taskId, JSON.stringify({ taskId, ...(subtopicId ? { subtopicId } : {}), report })).expire(key, this.config.UNFINISHED_RUN_TTL_SECONDS).exec();
  }

  /** The researchers' reports, in task id order. */
  async reports(runId: string): Promise<KeptReport[]> {
    const all = await this.redis.hvals(this.keys.taskReports(runId));
    return all.map((v) => KeptReportSchema.parse(JSON.parse(v))).sort((a, b) => a.taskId.localeCompare(b.taskId));
  }

  async findings(runId: string): Promise<Finding[]> {
    const all = await this.redis.hvals(this.keys.findings(runId));
    return all.map((v) => FindingSchema.parse(JSON.parse(v))).sort((a, b) => a.id.localeCompare(b.id));
  }

  /** Which subtopic brought which finding: every pair, including those whose finding is kept under another subtopic. */
  async broughtBy(runId: string): Promise<BroughtFinding[]> {
    return (await this.redis.smembers(this.keys.findingEvidence(runId))).map((m) => {
      const cut = m.indexOf(' ');
      return { subtopicId: m.slice(0, cut), findingId: m.slice(cut + 1) };
    });
  }

  async sources(runId: string, ids?: string[]): Promise<Source[]> {
    const raw = ids ? (ids.length ? await this.redis.hmget(this.keys.sources(runId), ...ids) : []) : await this.redis.hvals(this.keys.sources(runId));
    return raw.flatMap((v) => (v ? [SourceSchema.parse(JSON.parse(v))] : []));
  }

  /** Sorted: a hash's key order follows its insertion history, and a task payload must not. */
  async sourceIds(runId: string): Promise<string[]> {
    return (await this.redis.hkeys(this.keys.sources(runId))).sort();
  }

  /**
   * Copies one run's ledger into another's (a follow-up starts from its parent's evidence). Read from the one,
   * then written to the other in one pipeline: each run's keys share a hash slot, the two runs' need not.
   */
  async copy(fromRunId: string, toRunId: string): Promise<{ sources: number; findings: number }> {
    const k = this.keys;
    const [sources, findings, subtopics, evidence] = await Promise.all([
      this.redis.hgetall(k.sources(fromRunId)),
      this.redis.hgetall(k.findings(fromRunId)),
      this.redis.hgetall(k.findingSubtopics(fromRunId)),
      this.redis.smembers(k.findingEvidence(fromRunId)),
    ]);
    const ttl = this.config.UNFINISHED_RUN_TTL_SECONDS;
    const p = this.redis.pipeline();
    const hash = (key: string, values: Record<string, string>) => {
      if (Object.keys(values).length) p.hset(key, values).expire(key, ttl);
    };
    hash(k.sources(toRunId), sources);
    hash(k.findings(toRunId), findings);
    hash(k.findingSubtopics(toRunId), subtopics);
    if (evidence.length) p.sadd(k.findingEvidence(toRunId), ...evidence).expire(k.findingEvidence(toRunId), ttl);
    await p.exec();
    return { sources: Object.keys(sources).length, findings: Object.keys(findings).length };
  }

  /**
   * Files inherited findings under the follow-up's subtopics they bear on (`bearing`: finding ids per subtopic, best
   * first): each becomes evidence for every subtopic it bears on, and is kept under the one it bears on best, so the
   * writer gets it with that section. Idempotent: the same bearing writes the same values.
   */
  async fileInherited(runId: string, findings: readonly Finding[], bearing: Record<string, string[]>): Promise<void> {
    const best = new Map<string, { subtopicId: string; rank: number }>();
    for (const [subtopicId, ids] of Object.entries(bearing)) {
      ids.forEach((id, rank) => {
        const b = best.get(id);
        if (!b || rank < b.rank) best.set(id, { subtopicId, rank });
      });
    }
    if (!best.size) return;
    const k = this.keys;
    const p = this.redis.pipeline();
    for (const [subtopicId, ids] of Object.entries(bearing)) if (ids.length) p.sadd(k.findingEvidence(runId), ...ids.map((id) => `${subtopicId} ${id}`));
    for (const f of findings) {
      const to = best.get(f.id)?.subtopicId;
      if (!to || to === f.subtopicId) continue;
      p.hset(k.findings(runId), f.id, JSON.stringify({ ...f, subtopicId: to })).hset(k.findingSubtopics(runId), f.id, to);
    }
    p.expire(k.findingEvidence(runId), this.config.UNFINISHED_RUN_TTL_SECONDS);
    await p.exec();
  }

  async counts(runId: string): Promise<{ sources: number; findings: number }> {
    const [sources, findings] = await Promise.all([this.redis.hlen(this.keys.sources(runId)), this.redis.hlen(this.keys.findings(runId))]);
    return { sources, findings };
  }
}
