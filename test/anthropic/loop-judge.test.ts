/**
 * The judge inside a Claude research loop, and the judge switch at run time, against the fake Messages API (issue 18):
 * a researcher that repeats the same search is stopped by the loop judge within the configured steps, logged with its
 * level and state version; flipping POST /v1/admin/judge off mid-run stops every judge-model request at once (the
 * fake's request log proves it), in the running tasks and in the hub, and the run still finishes.
 */
import type { Decision } from '@orrery/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrreryClient } from '../../apps/cli/src/client/orrery-client';
import { FakeMessagesApi, reply, type FakeHandler } from '../support/fake-messages-api';
import { researchScript } from '../support/fake-research-script';
import { type Stack, startStack } from '../support/stack';
import { newApiKey } from '../support/test-env';

const ADMIN = newApiKey();
const USER = newApiKey();

describe('the loop judge and the judge switch in Claude runs', () => {
  let api: FakeMessagesApi;
  let stack: Stack;
  let admin: OrreryClient;
  const decisionsOf = async (id: string): Promise<Decision[]> => (await fetch(`${stack.coordinator.url}/v1/research/${id}/decisions`, { headers: { authorization: `Bearer ${ADMIN}` } })).json() as Promise<Decision[]>;
  const judgeSwitch = (key: string, body?: unknown) =>
    fetch(`${stack.coordinator.url}/v1/admin/judge`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  beforeAll(async () => {
    api = await FakeMessagesApi.start();
    stack = await startStack('loop-judge', {
      workers: 1,
      env: { ENGINE: 'anthropic', CLAUDE_DEFAULT_CORPUS: 'kestrel', ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: api.baseURL, WEB_SEARCH: 'off', API_KEYS: USER, ADMIN_API_KEYS: ADMIN, LOOP_JUDGE_EVERY: '2' },
      workerEnv: { SUBAGENT_CONCURRENCY: '1' },
    });
    admin = new OrreryClient(stack.coordinator.url, ADMIN);
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
    await api?.close();
  });

  it('stops a researcher that keeps repeating the same search within the configured steps, logged with level and state version', async () => {
    api.reset();
    // The researcher never concludes: the same corpus search, turn after turn.
    const repeating: FakeHandler = () => reply.toolUse([{ name: 'search_corpus', input: { query: 'Kestrel dam', limit: 5 } }], 'Searching again.');
    // The judge model inside the loop says continue, so what stops the loop is the rules' repetition check.
    const script = researchScript({ rounds: 1, subtopics: 2 });
    const judge: FakeHandler = (req) => (req.system.includes('tool loop') ? reply.json({ signal: 'continue', confidence: 0.7, reason: 'still searching' }) : (script['judge'] as FakeHandler)(req));
    api.scriptByRole({ ...script, researcher: repeating, judge });
    const { id } = await admin.submit({ topic: 'How has the Kestrel River changed: floods, dams and fisheries?' });
    const events: unknown[] = [];
    await admin.waitForEnd(id, (e) => events.push(e));
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
    const stops = (await decisionsOf(id)).filter((d) => d.decisionType === 'loop-judge' && d.signals['stopped'] === true);
    const tasks = (await admin.run(id)).counters.tasksDispatched - 1;
    expect(stops.length).toBe(tasks);
    for (const d of stops) expect(d).toMatchObject({ level: 'L0', signals: { step: 4, stateVersion: 4, rule: 'pivot-cooldown-stop', signal: 'stop' } });
    // Each task sent 4 researcher requests: the judge stopped it after its 4th tool turn, before the health monitor's idle stop.
    const researcher = api.accepted.filter((r) => r.role === 'researcher');
    expect(researcher.length).toBe(4 * tasks);
    // With LOOP_JUDGE_EVERY=2 the model was asked too: synchronously at step 2, asynchronously at steps 1 and 3.
    const l2 = (await decisionsOf(id)).filter((d) => d.decisionType === 'loop-judge' && d.level === 'L2');
    expect(l2.map((d) => d.signals['mode'])).toContain('sync');
    // The log keeps what the judge saw, the model's reply word for word, and its latency.
    expect(l2.find((d) => d.signals['mode'] === 'sync')).toMatchObject({ signals: { step: 2, stateVersion: 2, input: expect.stringMatching(/^step 2 of \d+; /), modelReply: expect.stringContaining('"signal":"continue"'), latencyMs: expect.any(Number) } });
  });

  it('a judge model that answers stop at 0.2 does not end a task: below 0.5 the ladder does not act', async () => {
    api.reset();
    const script = researchScript({ rounds: 1, subtopics: 2 });
    let loopJudgeCalls = 0;
    const judge: FakeHandler = (req) => (req.system.includes('tool loop') ? (loopJudgeCalls++, reply.json({ signal: 'stop', confidence: 0.2, reason: 'probably enough' })) : (script['judge'] as FakeHandler)(req));
    api.scriptByRole({ ...script, judge });
    const { id } = await admin.submit({ topic: 'How has the Kestrel River changed: floods, dams and fisheries?' });
    const events: unknown[] = [];
    await admin.waitForEnd(id, (e) => events.push(e));
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
    const loop = (await decisionsOf(id)).filter((d) => d.decisionType === 'loop-judge');
    // The model was asked (synchronously at step 2) and said stop, unsure; no task was stopped by it.
    expect(loopJudgeCalls).toBeGreaterThan(0);
    expect(loop.filter((d) => d.signals['stopped'] === true)).toEqual([]);
    expect(loop.find((d) => d.signals['mode'] === 'sync')).toMatchObject({ signals: { step: 2, signal: 'continue' }, conclusion: expect.stringContaining('judge model unsure (stop at 0.2): not acted on') });
    // Every task went on past step 2 to its own end.
    const tasks = (await admin.run(id)).counters.tasksDispatched - 1;
    expect(api.accepted.filter((r) => r.role === 'researcher').length).toBeGreaterThan(2 * tasks);
    // The loop judge's judgements reach /metrics, by level and surface, with their latency.
    const metrics = await (await fetch(`${stack.coordinator.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })).text();
    expect(metrics).toMatch(/^orrery_judge_verdicts_total\{signal="continue",level="L2",surface="loop"\} [1-9]/m);
    expect(metrics).toMatch(/^orrery_judge_latency_seconds_count\{level="L2",surface="loop"\} [1-9]/m);
  });

  it('POST /v1/admin/judge off mid-run: no judge-model request reaches the API afterwards, the run finishes, GET and /metrics show it', async () => {
    api.reset();
    expect((await judgeSwitch(USER)).status).toBe(403);
    expect((await judgeSwitch(USER, { enabled: false })).status).toBe(403);
    expect((await judgeSwitch(ADMIN, { enabled: 'no' })).status).toBe(400);
    expect(await (await judgeSwitch(ADMIN)).json()).toMatchObject({ enabled: true });
    let flippedAt = -1;
    const script = researchScript({ rounds: 2, subtopics: 2 });
    // The first judge request (inside the first research task) holds its answer until the switch is off.
    const judge: FakeHandler = async (req) => {
      if (flippedAt < 0) {
        flippedAt = 0;
        const res = await judgeSwitch(ADMIN, { enabled: false });
        expect(res.status).toBe(200);
        // From here on the switch reads off everywhere: every later request the fake logs came after the flip.
        flippedAt = api.requests.length;
      }
      return (script['judge'] as FakeHandler)(req);
    };
    api.scriptByRole({ ...script, judge });
    const { id } = await admin.submit({ topic: 'How has the Kestrel River changed: floods, dams and fisheries?' });
    const events: unknown[] = [];
    await admin.waitForEnd(id, (e) => events.push(e));
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
    expect(flippedAt).toBeGreaterThan(0);
    const judge = api.requests.filter((r) => r.role === 'judge');
    expect(judge.length).toBeGreaterThan(0);
    expect(judge.filter((r) => r.index >= flippedAt).map((r) => r.index)).toEqual([]);
    // The run went on: more research after the flip, judged by rules alone (the hub's round judge included).
    expect(api.requests.filter((r) => r.role === 'researcher' && r.index > flippedAt).length).toBeGreaterThan(0);
    const roundJudge = (await decisionsOf(id)).filter((d) => d.decisionType === 'judge');
    expect(roundJudge.length).toBeGreaterThan(0);
    for (const d of roundJudge) expect(d.signals['flags']).toContain('judge-off');
    expect(await (await judgeSwitch(ADMIN)).json()).toMatchObject({ enabled: false, changedBy: expect.stringMatching(/^key:/) });
    const metrics = await (await fetch(`${stack.coordinator.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })).text();
    expect(metrics).toMatch(/^orrery_judge_enabled 0$/m);
    expect((await judgeSwitch(ADMIN, { enabled: true })).status).toBe(200);
    expect(await (await fetch(`${stack.coordinator.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })).text()).toMatch(/^orrery_judge_enabled 1$/m);
  });
});
