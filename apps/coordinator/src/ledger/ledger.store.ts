import { Inject, Injectable } from '@nestjs/common';
import { type Finding, FindingSchema, type Source, SourceSchema } from '@orrery/protocol';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { REDIS } from '../redis/redis.module';
import { RunKeys } from '../redis/run-keys';

/**
 * Merges one task's sources and findings atomically, keyed by task id: a task delivered twice
 * (at-least-once) is merged once, and the second merge reports the first one's figures.
 */
const MERGE_SCRIPT = `
local existing = redis.call('HGET', KEYS[1], ARGV[1])
if existing then return existing end
local ns, nf = 0, 0
local i = 3
for j = 1, tonumber(ARGV[2]) do ns = ns + redis.call('HSETNX', KEYS[2], ARGV[i], ARGV[i + 1]); i = i + 2 end
local count = tonumber(ARGV[i]); i = i + 1
for j = 1, count do nf = nf + redis.call('HSETNX', KEYS[3], ARGV[i], ARGV[i + 1]); i = i + 2 end
local rec = cjson.encode({ newSources = ns, newFindings = nf })
redis.call('HSET', KEYS[1], ARGV[1], rec)
local ttl = tonumber(ARGV[i])
for k = 1, 3 do if redis.call('TTL', KEYS[k]) == -1 then redis.call('EXPIRE', KEYS[k], ttl) end end
return rec`;

const MergeRecordSchema = z.object({ newSources: z.number(), newFindings: z.number() });
export type MergeRecord = z.infer<typeof MergeRecordSchema>;

/** The run's evidence ledger: every source retrieved and every finding accepted, deduplicated. */
@Injectable()
export class LedgerStore {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
    private readonly keys: RunKeys,
  ) {}

  async merge(runId: string, taskId: string, sources: Source[], findings: Finding[]): Promise<MergeRecord> {
    const args: string[] = [taskId, String(sources.length)];
    for (const s of sources) args.push(s.id, JSON.stringify(s));
    args.push(String(findings.length));
    for (const f of findings) args.push(f.id, JSON.stringify(f));
    args.push(String(this.config.UNFINISHED_RUN_TTL_SECONDS));
    const rec = await this.redis.eval(MERGE_SCRIPT, 3, this.keys.results(runId), this.keys.sources(runId), this.keys.findings(runId), ...args);
    return MergeRecordSchema.parse(JSON.parse(String(rec)));
  }

  async findings(runId: string): Promise<Finding[]> {
    const all = await this.redis.hvals(this.keys.findings(runId));
    return all.map((v) => FindingSchema.parse(JSON.parse(v))).sort((a, b) => a.id.localeCompare(b.id));
  }

  async sources(runId: string, ids?: string[]): Promise<Source[]> {
    const raw = ids ? (ids.length ? await this.redis.hmget(this.keys.sources(runId), ...ids) : []) : await this.redis.hvals(this.keys.sources(runId));
    return raw.flatMap((v) => (v ? [SourceSchema.parse(JSON.parse(v))] : []));
  }

  async sourceIds(runId: string): Promise<string[]> {
    return this.redis.hkeys(this.keys.sources(runId));
  }

  async counts(runId: string): Promise<{ sources: number; findings: number }> {
    const [sources, findings] = await Promise.all([this.redis.hlen(this.keys.sources(runId)), this.redis.hlen(this.keys.findings(runId))]);
    return { sources, findings };
  }
}
