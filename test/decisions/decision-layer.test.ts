import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';
import { REDIS_URL, ROOT } from '../support/test-env';

const run = promisify(execFile);

describe('the decision layer, end to end', () => {
  let stack: Stack;
  beforeAll(async () => {
    // Six planned subtopics; s3 and s6 always come back empty, so coverage stays at 4/6, below the 0.8 target.
    stack = await startStack('decisions', {
      workers: 1,
      env: { SIMULATED_SUBTOPICS: '6', SIMULATED_EMPTY_EVERY: '3', SIMULATED_ROUNDS: '2' },
      workerEnv: { SUBAGENT_CONCURRENCY: '4' },
    });
  });
  afterAll(async () => stack?.stop());

  const decisionsOf = async (id: string) => (await fetch(`${stack.coordinator.url}/v1/research/${id}/decisions`)).json() as Promise<Array<Record<string, any>>>;

  it('answers a straightforward question with exactly one search task and no writer', async () => {
    const { id } = await stack.client.submit({ topic: 'When was the Harlow Dam completed?' });
    const events = await stack.follow(id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
    const jobs = (await stack.jobs('subagents')).filter((j) => j.id!.startsWith(id));
    expect(jobs.map((j) => j.name)).toEqual(['search']);
    const report = await stack.client.report(id);
    expect(report.sections.flatMap((s) => s.paragraphs).length).toBeGreaterThan(0);
    expect(report.sources.map((s) => s.id)).toContain('kr-dams-05');
    const decisions = await decisionsOf(id);
    expect(decisions.find((d) => d.decisionType === 'classification')).toMatchObject({ level: 'L0', signals: expect.objectContaining({ class: 'straightforward' }) });
  });

  it('wraps up under 15% of the budget and still reports, listing the gaps', async () => {
    const { id } = await stack.client.submit({ topic: 'renewable energy policy overview', engine: 'simulated', budget: { maxTasks: 7 } });
    const events = await stack.follow(id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
    const runRecord = await stack.client.run(id);
    expect(runRecord.rounds).toHaveLength(1);
    expect(runRecord.counters.tasksDispatched).toBe(7); // six searches and the writer
    const report = await stack.client.report(id);
    expect(report.coverage.gaps).toHaveLength(2);
    expect(report.coverage.subtopics.filter((s) => s.status === 'missing').map((s) => s.id)).toEqual(['s3', 's6']);
    expect(report.sources.length).toBe(12);
    // The round policy wraps up before the judge is asked: no judge verdict is paid for on a spent budget.
    const decisions = await decisionsOf(id);
    expect(decisions.find((d) => d.decisionType === 'budget')).toMatchObject({ level: 'L0', conclusion: expect.stringMatching(/^wrap-up/) });
    expect(decisions.some((d) => d.decisionType === 'judge')).toBe(false);
  });

  it('writes a decision and an event when the spend rate projects past the budget before the wrap-up threshold', async () => {
    // Round 1 dispatches six of eleven tasks: 45% left, 55% a round, so round 2 would overrun at that rate.
    const { id } = await stack.client.submit({ topic: 'renewable energy grid overview', engine: 'simulated', budget: { maxTasks: 11 } });
    const events = await stack.follow(id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
    expect(events.find((e) => e.type === 'budget.warning')).toMatchObject({ round: 1, dimension: 'tasks', left: expect.closeTo(5 / 11, 6), phase: 'research' });
    const decisions = await decisionsOf(id);
    expect(decisions.find((d) => d.decisionType === 'budget-warning')).toMatchObject({ level: 'L0', signals: { round: 1, dimension: 'tasks', phase: 'research' }, conclusion: expect.stringMatching(/^warning: the tasks budget has 45% left and each round so far spent \d+% \(most of it spent in research\)/) });
    const metrics = await (await fetch(`${stack.coordinator.url}/metrics`)).text();
    expect(metrics).toMatch(/orrery_budget_overrun_warnings_total\{dimension="tasks",phase="research"\} [1-9]/);
  });

  it('pauses as needs_review when the budget runs out below target coverage, then resumes on a human decision', async () => {
    const { id } = await stack.client.submit({ topic: 'renewable energy storage overview', engine: 'simulated', budget: { maxTasks: 6 } });
    let status = '';
    for (let i = 0; i < 200 && status !== 'needs_review'; i++) {
      status = (await stack.client.run(id)).status;
      await new Promise((r) => setTimeout(r, 100));
    }
    const paused = await stack.client.run(id);
    expect(paused.status).toBe('needs_review');
    expect(paused.review).toMatchObject({ cause: 'budget-exhausted-below-target', options: expect.arrayContaining(['extend-budget', 'stop']) });
    expect(paused.review!.missing.map((m) => m.id)).toEqual(['s3', 's6']);
    expect((await decisionsOf(id)).some((d) => d.decisionType === 'escalation' && d.level === 'L3')).toBe(true);

    const bad = await fetch(`${stack.coordinator.url}/v1/research/${id}/decision`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"action":"maybe"}' });
    expect(bad.status).toBe(400);
    const res = await fetch(`${stack.coordinator.url}/v1/research/${id}/decision`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'continue', extraBudget: { maxTasks: 4 } }),
    });
    expect(res.status).toBe(202);
    const events = await stack.follow(id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
    const done = await stack.client.run(id);
    expect(done.budget.maxTasks).toBe(10);
    expect(done.rounds.length).toBe(2);
    expect((await decisionsOf(id)).some((d) => d.decisionType === 'human-decision')).toBe(true);
    const again = await fetch(`${stack.coordinator.url}/v1/research/${id}/decision`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"action":"stop"}' });
    expect(again.status).toBe(409);
  });

  it('replays a finished run from its event stream, and the metrics reflect it', async () => {
    const { id } = await stack.client.submit({ topic: 'renewable energy markets overview', engine: 'simulated' });
    await stack.follow(id);
    const { stdout } = await run(process.execPath, [resolve(ROOT, 'apps/cli/dist/replay.js'), id], { env: { ...process.env, REDIS_URL, QUEUE_PREFIX: stack.prefix } });
    expect(stdout).toContain(`Run ${id}: "renewable energy markets overview"`);
    expect(stdout).toMatch(/round 1: 6 tasks/);
    expect(stdout).toMatch(/decision judge \[L0, confidence \d\.\d\d, state v\d+\]/);
    expect(stdout).toMatch(/signals: .*novelty=/);
    expect(stdout).toMatch(/Outcome: done after 2 rounds/);

    const metrics = await (await fetch(`${stack.coordinator.url}/metrics`)).text();
    expect(metrics).toMatch(/orrery_runs_total\{status="done"\} [1-9]/);
    expect(metrics).toMatch(/orrery_judge_verdicts_total\{signal="\w+",level="L0",surface="round"\} [1-9]/);
    expect(metrics).toMatch(/orrery_judge_latency_seconds_count\{level="L0",surface="round"\} [1-9]/);
    expect(metrics).toMatch(/# TYPE orrery_judge_timeouts_total counter/);
    expect(metrics).toMatch(/orrery_result_verdicts_total\{verdict="pass"\} [1-9]/);
    expect(metrics).toMatch(/orrery_tasks_total\{kind="search",outcome="pass"\} [1-9]/);
    expect(metrics).toMatch(/orrery_queue_jobs\{queue="subagents",state="waiting"\} 0/);
    expect(metrics).toMatch(/orrery_run_duration_seconds_count\{status="done"\} [1-9]/);
  });
});

describe('JUDGE=off', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('judgeoff', { workers: 1, env: { JUDGE: 'off', SIMULATED_ROUNDS: '3' } });
  });
  afterAll(async () => stack?.stop());

  it('decides by rules alone, never asks a model, and the run completes', async () => {
    const { id } = await stack.client.submit({ topic: 'renewable energy markets overview', engine: 'simulated' });
    const events = await stack.follow(id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
    const judged = (await (await fetch(`${stack.coordinator.url}/v1/research/${id}/decisions`)).json()) as Array<Record<string, any>>;
    const verdicts = judged.filter((d) => d.decisionType === 'judge');
    expect(verdicts.length).toBeGreaterThan(0);
    for (const v of verdicts) {
      expect(v.level).toBe('L0');
      expect(v.signals.flags).toContain('judge-off');
      expect(v.conclusion).not.toMatch(/^pivot/);
    }
  });
});
