/**
 * The decision log holds exactly the decisions of the moves that were applied, whatever the round step's
 * executions do: a second execution racing the first, an execution killed between deciding and writing its
 * move, an execution that runs later than the state it decides on. The coordinator runs in this process (so a
 * test can step in between two lines of a step), on real Redis and real BullMQ, with a real worker process.
 */
import type { INestApplication } from '@nestjs/common';
import type { Run } from '@orrery/protocol';
import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { OrreryClient } from '../../apps/cli/src/client/orrery-client';
import { startCoordinator } from '../../apps/coordinator/src/bootstrap';
import { roundFigures } from '../../apps/coordinator/src/coverage/round-figures';
import { LedgerStore } from '../../apps/coordinator/src/ledger/ledger.store';
import { RunStore } from '../../apps/coordinator/src/runs/run-store';
import { RoundDecision } from '../../apps/coordinator/src/runs/steps/round-decision';
import { RoundStep } from '../../apps/coordinator/src/runs/steps/round.step';
import { type ServiceProcess, startWorkerProcess, waitFor } from '../support/service-processes';
import { dropPrefix, REDIS_URL, redisClient, uniquePrefix } from '../support/test-env';

const prefix = uniquePrefix('decision-log');
const env = { QUEUE_PREFIX: prefix, REDIS_URL, ENGINE: 'simulated', SIMULATED_SUBTOPICS: '3', SIMULATED_ROUNDS: '2' };
/** Two rounds: round 1's move opens round 2, and round 2 is the last the budget grants. */
const request = (topic: string) => ({ topic, engine: 'simulated' as const, budget: { maxRounds: 2 } });

describe('the decision log holds the decisions of the applied moves only', () => {
  let app: INestApplication;
  let client: OrreryClient;
  let worker: ServiceProcess;
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    for (const [k, v] of Object.entries(env)) [saved[k], process.env[k]] = [process.env[k], v];
    const started = await startCoordinator({ port: 0, logger: false, shutdownHooks: false });
    app = started.app;
    client = new OrreryClient(started.url);
    worker = await startWorkerProcess({ ...env, SUBAGENT_CONCURRENCY: '2' }, 'worker-1');
  });
  afterAll(async () => {
    await worker?.kill('SIGTERM');
    await app?.close();
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
    else process.env[k] = v;
    await dropPrefix(prefix);
  });

  /** The decision types of a run's log, in the order they were logged. */
  const decisions = async (runId: string): Promise<string[]> => {
    const redis = redisClient();
    try {
      const entries = await redis.xrange(`${prefix}:run:{${runId}}:events`, '-', '+');
      return entries.flatMap(([, fields]) => {
        const e = JSON.parse(fields[fields.indexOf('event') + 1]!) as { type: string; decision?: { decisionType: string } };
        return e.type === 'decision' ? [e.decision!.decisionType] : [];
      });
    } finally {
      redis.disconnect();
    }
  };
  /** The round-level decisions (not the per-task verdicts) in the order they were logged. */
  const roundDecisions = async (runId: string) => (await decisions(runId)).filter((t) => t !== 'result-verdict');
  const runToEnd = async (topic: string): Promise<string> => {
    const { id } = await client.submit(request(topic));
    await waitFor(async () => ['done', 'failed', 'cancelled'].includes((await client.run(id)).status), 90_000, `run ${id} to end`);
    expect((await client.run(id)).status).toBe('done');
    return id;
  };

  it('a second execution that finds the round completed by a racing one logs nothing and changes nothing', { timeout: 240_000 }, async () => {
    const baseline = await roundDecisions(await runToEnd('decision log: a race between two executions'));
    expect(baseline.length).toBeGreaterThan(0);

    const step = app.get(RoundStep);
    const store = app.get(RunStore);
    const original = step.run.bind(step);
    const realRequire = store.require.bind(store);
    let raced: string | undefined;
    let armed: Job | undefined;
    // Round 1's step: its first execution reads the run, then, before it goes on, a second execution of the same
    // job runs to the end (completes round 1, opens round 2). The first then carries on from its earlier read.
    vi.spyOn(step, 'run').mockImplementation(async (runId: string, round: number, retry: number, job: Job) => {
      if (runId === raced && round === 1 && retry === 0) armed = job;
      return original(runId, round, retry, job);
    });
    vi.spyOn(store, 'require').mockImplementation(async (runId: string): Promise<Run> => {
      const read = await realRequire(runId);
      if (runId !== raced || !armed || read.rounds.length !== 1) return read;
      const job = armed;
      armed = undefined;
      raced = `${runId}:done`;
      await original(runId, 1, 0, job);
      const after = await realRequire(runId);
      expect(after.rounds.map((r) => r.status)).toEqual(['completed', 'dispatched']);
      return read;
    });
    try {
      const { id } = await client.submit(request('decision log: a race between two executions'));
      raced = id;
      await waitFor(async () => ['done', 'failed', 'cancelled'].includes((await client.run(id)).status), 90_000, `run ${id} to end`);
      expect(raced, 'the race was staged').toBe(`${id}:done`);
      expect((await client.run(id)).status).toBe('done');
      expect(await roundDecisions(id)).toEqual(baseline);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('an execution killed after deciding, before its move is written, leaves nothing in the log; its retry writes the move once', { timeout: 240_000 }, async () => {
    const baseline = await roundDecisions(await runToEnd('decision log: killed between deciding and writing'));
    const ledger = app.get(LedgerStore);
    const counts = ledger.counts.bind(ledger);
    let killed: string | undefined;
    let atKill: string[] | undefined;
    // `counts` is read after the decision and before the compare-and-set: failing there is the step dying between the two.
    vi.spyOn(ledger, 'counts').mockImplementation(async (runId: string) => {
      if (runId === killed && !atKill) {
        atKill = await roundDecisions(runId);
        throw new Error('killed between deciding and writing the move');
      }
      return counts(runId);
    });
    try {
      const { id } = await client.submit(request('decision log: killed between deciding and writing'));
      killed = id;
      await waitFor(async () => ['done', 'failed', 'cancelled'].includes((await client.run(id)).status), 90_000, `run ${id} to end`);
      expect(atKill, 'the step was killed').toBeDefined();
      // What was logged before round 1's step: the plan's decisions, nothing of round 1's decision.
      expect(atKill).toEqual(baseline.slice(0, baseline.indexOf('judge')));
      expect((await client.run(id)).status).toBe('done');
      expect(await roundDecisions(id)).toEqual(baseline);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('a step run later than the state it decides on decides as on that state (the wall budget at its last write)', { timeout: 240_000 }, async () => {
    const id = await runToEnd('decision log: a late execution');
    const done = await app.get(RunStore).require(id);
    const [findings, brought] = await Promise.all([app.get(LedgerStore).findings(id), app.get(LedgerStore).broughtBy(id)]);
    const rec = done.rounds[0]!;
    // Round 1 as it settled five seconds ago: one round started, a one-second wall budget of which 10% had gone
    // at the state's last write. By the clock of this process the wall budget is spent.
    const at = Date.now() - 5000;
    const budget = { ...done.budget, maxRounds: 2, maxWallSeconds: 1 };
    const plan = { ...done.plan!, subtopics: done.plan!.subtopics.filter((s) => rec.subtopicIds.includes(s.id)) };
    const ledger = { ...done.budgetLedger, budget, roundsStarted: 1, startedAtMs: at - 100 };
    const run: Run = { ...done, status: 'researching', plan, updatedAt: new Date(at).toISOString(), budget, budgetLedger: ledger };
    const figures = roundFigures(run.plan!, findings, brought, rec.returned, rec.newFindings);
    const decided = await app.get(RoundDecision).decide(run, rec, figures, findings);
    expect(decided.move.kind).toBe('round');
    expect(decided.log.map((e) => (JSON.parse(e.json) as { decision: { decisionType: string } }).decision.decisionType)).toEqual(['judge', 'judge', 'refinement', 'continue']);
  });
});
