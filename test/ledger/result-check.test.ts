/**
 * The coordinator's result path against a real Redis and real BullMQ queues: the check, the one-call intake
 * (verdict, merge, `task.completed`) and the decisions a result carries, each written once however often the
 * same result is checked (at-least-once delivery, the completion event and the round step, two replicas).
 */
import { FlowProducer, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { queuePrefix } from '@orrery/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COORDINATOR_QUEUE, type SearchResult, type SearchTask, SUBAGENT_QUEUE } from '@orrery/protocol';
import { loadCoordinatorConfig } from '../../apps/coordinator/src/config/coordinator-config';
import { DecisionLogService } from '../../apps/coordinator/src/events/decision-log.service';
import { RunEventsService } from '../../apps/coordinator/src/events/run-events.service';
import { LedgerStore } from '../../apps/coordinator/src/ledger/ledger.store';
import { ResultCheckService } from '../../apps/coordinator/src/ledger/result-check.service';
import { ResultIntakeService } from '../../apps/coordinator/src/ledger/result-intake.service';
import { MetricsService } from '../../apps/coordinator/src/metrics/metrics.service';
import { DispatchedTasks } from '../../apps/coordinator/src/queues/dispatched-tasks';
import { TaskDispatcher } from '../../apps/coordinator/src/queues/task-dispatcher';
import { RunKeys } from '../../apps/coordinator/src/redis/run-keys';
import { EngineFactory, loadEngineConfig } from '@orrery/engines';
import { dropPrefix, FIXTURE_CORPUS, REDIS_URL, redisClient, uniquePrefix } from '../support/test-env';

const prefix = uniquePrefix('result-check');
const config = loadCoordinatorConfig({ REDIS_URL, QUEUE_PREFIX: prefix });
const runId = '11111111-2222-4333-8444-555555555555';
const topic = 'kestrel migration';

const task = (taskId: string): SearchTask => ({
  kind: 'search',
  taskId,
  runId,
  round: 1,
  engine: 'corpus',
  subtopicId: 's1',
  query: 'kestrel migration routes',
  maxFindings: 10,
  knownSourceIds: [],
  context: { objective: 'find evidence', topic, scope: { include: [], exclude: [] }, outputFormat: 'findings', sourceGuidance: 'corpus', excerpts: [] },
});

const text = 'Kestrel migration follows the coast in autumn, and kestrel pairs return to the same nest sites.';
const result = (taskId: string, decisions: SearchResult['decisions'] = []): SearchResult => ({
  kind: 'search',
  taskId,
  usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, webSearchRequests: 0, webFetchRequests: 0, costUsd: 0 },
  stats: {},
  sources: [
    { id: 'k1', kind: 'passage', title: 'Kestrels', text },
    { id: 'k2', kind: 'passage', title: 'Kestrels again', text: `${text} More on kestrel migration.` },
  ],
  findings: [
    { id: 'k1#1', claim: 'Kestrel migration follows the coast in autumn.', sourceId: 'k1', quote: 'Kestrel migration follows the coast in autumn', subtopicId: 's1' },
    { id: 'k2#1', claim: 'Kestrel pairs return to the same nest sites.', sourceId: 'k2', quote: 'kestrel pairs return to the same nest sites', subtopicId: 's1' },
  ],
  ...(decisions.length ? { decisions } : {}),
});

describe('result check and intake (real Redis)', () => {
  let redis: Redis;
  let queues: Queue[];
  let flows: FlowProducer;
  let keys: RunKeys;
  let events: RunEventsService;
  const engines = new EngineFactory(loadEngineConfig({ CORPORA: `kestrel=${FIXTURE_CORPUS}` }));
  let metrics: MetricsService;
  /** A fresh coordinator's result path (a replica, sharing nothing in memory); the metrics only count. */
  const services = (): ResultCheckService => {
    const ledger = new LedgerStore(redis, config, keys);
    const decisions = new DecisionLogService(events);
    return new ResultCheckService(new ResultIntakeService(ledger, events), decisions, metrics, engines);
  };

  beforeAll(() => {
    redis = redisClient();
    const connection = { url: REDIS_URL };
    queues = [new Queue(COORDINATOR_QUEUE, { connection, prefix: queuePrefix(prefix) }), new Queue(SUBAGENT_QUEUE, { connection, prefix: queuePrefix(prefix) })];
    flows = new FlowProducer({ connection, prefix: queuePrefix(prefix) });
    keys = new RunKeys(prefix);
    events = new RunEventsService(redis, config, keys);
    metrics = new MetricsService(new TaskDispatcher(queues[0]!, queues[1]!, flows, config, new DispatchedTasks()));
  });

  afterAll(async () => {
    await Promise.all([...queues, flows].map((q) => q.close()));
    redis.disconnect();
    await dropPrefix(prefix);
  });

  it('merges a result once, with its verdict and task.completed, however often it is checked', async () => {
    const taskId = `${runId}.r1.t1`;
    const first = await services().check(runId, 1, task(taskId), result(taskId));
    expect(first).toMatchObject({ ok: true, returned: 2, newFindings: 2, newSources: 2 });
    // A second replica (no shared memory) checks the same delivery again: same figures, nothing written twice.
    const again = await services().check(runId, 1, task(taskId), JSON.parse(JSON.stringify(result(taskId))));
    expect(again).toMatchObject({ ok: true, newFindings: 2, newSources: 2 });
    const all = await events.readAll(runId);
    expect(all.filter((e) => e.type === 'task.completed')).toEqual([expect.objectContaining({ taskId, findings: 2, newSources: 2 })]);
    expect(all.filter((e) => e.type === 'decision' && e.decision.decisionType === 'result-verdict')).toHaveLength(1);
    expect(await redis.hlen(keys.findings(runId))).toBe(2);
    expect(await redis.hlen(keys.sources(runId))).toBe(2);
  });

  it("keeps a researcher's condensed report beside its findings, once, under its task and subtopic, for the lead who writes", async () => {
    const taskId = `${runId}.r1.t9`;
    const report = { text: 'The coastal survey is the primary source; the blog repeats it.', gaps: ['no figures for 2024'], conflicts: ['the blog dates the migration to September'] };
    await services().check(runId, 1, task(taskId), { ...result(taskId), report });
    await services().check(runId, 1, task(taskId), JSON.parse(JSON.stringify({ ...result(taskId), report })));
    const kept = await new LedgerStore(redis, config, keys).reports(runId);
    expect(kept.filter((k) => k.taskId === taskId)).toEqual([{ taskId, subtopicId: 's1', report }]);
  });

  it('logs the decisions a result carries, under the keys the live progress path uses', async () => {
    const taskId = `${runId}.r1.t2`;
    const decision = { decisionType: 'fallback', level: 'L2' as const, confidence: 0.9, conclusion: 'the model refused; the corpus engine answered', signals: { fallbackEngine: 'corpus' } };
    const line = { taskId, stage: 'decision:fallback', message: 'fell back to the corpus engine', decision };
    const check = services();
    await check.check(runId, 1, task(taskId), result(taskId, [line]));
    await services().check(runId, 1, task(taskId), result(taskId, [line]));
    const logged = (await events.readAll(runId)).flatMap((e) => (e.type === 'decision' && e.decision.decisionType === 'fallback' ? [e.decision] : []));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 'L2', signals: { taskId, round: 1, origin: 'subagent', fallbackEngine: 'corpus' } });
  });

  it('keeps the same finding from two subtopics under one subtopic, whichever result lands first', async () => {
    // Two subtopics' tasks quote the same passage: one finding id. Which task's copy the ledger keeps decides
    // the per-subtopic evidence, and so the thin subtopics and the next round; it must not be arrival order.
    const asSubtopic = (id: string, subtopicId: string): [SearchTask, SearchResult] => {
      const r = result(id);
      return [{ ...task(id), subtopicId }, { ...r, findings: r.findings.map((f) => ({ ...f, subtopicId })) }];
    };
    const kept: string[][] = [];
    for (const order of [['s-a', 's-b'], ['s-b', 's-a']]) {
      const run = `${runId.slice(0, -1)}${kept.length + 6}`;
      for (const [i, subtopicId] of order.entries()) {
        const [t, r] = asSubtopic(`${run}.r1.t${i + 1}`, subtopicId!);
        await services().check(run, 1, { ...t, runId: run }, r);
      }
      const findings = await new LedgerStore(redis, config, keys).findings(run);
      kept.push(findings.map((f) => `${f.id}:${f.subtopicId}`));
    }
    expect(kept[0]).toEqual(['k1#1:s-a', 'k2#1:s-a']);
    expect(kept[1]).toEqual(kept[0]);
  });

  it('merges text that is not well-formed Unicode (a page can hold a lone surrogate) when two subtopics bring the same finding', async () => {
    // Redis's Lua cjson refuses a lone surrogate, so the intake must never decode a finding's text.
    const odd = `${text} A kestrel \ud83d was seen.`;
    const run = `${runId.slice(0, -1)}9`;
    for (const [i, subtopicId] of ['s-b', 's-a'].entries()) {
      const id = `${run}.r1.t${i + 1}`;
      const r: SearchResult = {
        ...result(id),
        sources: [{ id: 'k9', kind: 'passage', title: 'Kestrels \udc00', text: odd }],
        findings: [{ id: 'k9#1', claim: 'A kestrel \ud83d was seen.', sourceId: 'k9', quote: 'A kestrel \ud83d was seen', subtopicId }],
      };
      expect(await services().check(run, 1, { ...task(id), runId: run, subtopicId }, r)).toMatchObject({ ok: true });
    }
    const findings = await new LedgerStore(redis, config, keys).findings(run);
    expect(findings.map((f) => [f.subtopicId, f.quote])).toEqual([['s-a', 'A kestrel \ud83d was seen']]);
  });

  it("keeps a finding that names no topic word when the hub's own guard holds its source on-topic, and only then", async () => {
    // "Power from the Kestrel River dams once ran the valley's sawmills...": the quote names no word of the
    // topic or the task, but the corpus engine's precision guard (run here, in the hub) puts the passage on
    // "Kestrel River". The choir passage is off the topic by both tests. An engine without a guard of its own
    // (simulated) vouches for nothing.
    const sources = [
      { id: 'kr-dams-08', kind: 'passage' as const, title: 'Kestrel River: dams (8)', text: "Power from the Kestrel River dams once ran the valley's sawmills and the aluminium smelter at Brant." },
      { id: 'noise-04', kind: 'passage' as const, title: 'Other 4', text: 'The local choir rehearses on Thursdays and performs at the harvest fair every year.' },
    ];
    const findings = [
      { id: 'kr-dams-08#1', claim: "Once ran the valley's sawmills.", sourceId: 'kr-dams-08', quote: "once ran the valley's sawmills and the aluminium smelter at Brant", subtopicId: 's1' },
      { id: 'noise-04#1', claim: 'The local choir rehearses on Thursdays.', sourceId: 'noise-04', quote: 'The local choir rehearses on Thursdays', subtopicId: 's1' },
    ];
    const outcomes = [];
    for (const [n, engine] of (['corpus', 'simulated'] as const).entries()) {
      const taskId = `${runId}.r1.t${5 + n}`;
      const t: SearchTask = { ...task(taskId), engine, corpus: 'kestrel', context: { ...task(taskId).context, topic: 'Kestrel River' } };
      outcomes.push(await services().check(runId, 1, t, { ...result(taskId), sources, findings }));
    }
    expect(outcomes[0]).toMatchObject({ ok: true, returned: 1, newFindings: 1 });
    expect(outcomes[1]).toMatchObject({ returned: 0, newFindings: 0 });
    const ledger = await new LedgerStore(redis, config, keys).findings(runId);
    expect(ledger.map((f) => f.id)).toContain('kr-dams-08#1');
    expect(ledger.map((f) => f.id)).not.toContain('noise-04#1');
  });

  it('writes only the verdict for a result that fails its format, and merges nothing', async () => {
    const taskId = `${runId}.r1.t3`;
    const outcome = await services().check(runId, 1, task(taskId), { kind: 'search', taskId, findings: 'not a list' });
    expect(outcome.ok).toBe(false);
    const mine = (await events.readAll(runId)).filter((e) => JSON.stringify(e).includes(taskId));
    expect(mine.map((e) => e.type)).toEqual(['decision']);
  });
});
