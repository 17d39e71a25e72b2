/**
 * A 429 is a wall for the whole organisation (rate limits docs: limits are per organisation; `retry-after` says how
 * long to wait). While the fake answers every request with 429 and `retry-after: 2` for 10 s, three worker processes
 * must back off together: one probe per retry-after window across the fleet, no new task started into the wall, and
 * no task started over (so no web search billed twice). The hub's own calls wait behind the same wall.
 */
import { AnthropicCoordinatorEngine } from '@orrery/claude-engine';
import { FleetRequestGate } from '@orrery/runtime';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelJudgeInput as JudgeInput } from '@orrery/engine';
import { apiError, FakeMessagesApi, reply, type FakeHandler } from '../support/fake-messages-api';
import { researchScript } from '../support/fake-research-script';
import { type Stack, startStack } from '../support/stack';
import { dropPrefix, REDIS_URL, uniquePrefix } from '../support/test-env';

const WALL_MS = 10_000;
const RETRY_AFTER_S = 2;
/** How late a request sent before the fleet knew of the first 429 may still arrive. */
const IN_FLIGHT_MS = 400;

describe('fleet-wide rate limits', () => {
  let api: FakeMessagesApi;
  let stack: Stack;
  let wallFrom = 0;

  beforeAll(async () => {
    api = await FakeMessagesApi.start();
    const script = researchScript({ rounds: 1, subtopics: 3 });
    const researcher = script['researcher']!;
    // Once all three tasks are under way (each worker warm, with searches already billed), the wall goes up: from that
    // request on, for 10 s, every request meets it.
    const started = new Set<string>();
    const walled: FakeHandler = (req) => {
      started.add(JSON.stringify(req.messages[0]));
      if (!wallFrom && started.size >= 3 && req.messages.length >= 3) {
        wallFrom = Date.now();
        api.rateLimitFor(WALL_MS, RETRY_AFTER_S);
        return apiError.rateLimited(RETRY_AFTER_S);
      }
      return researcher(req);
    };
    api.scriptByRole({ ...script, researcher: walled });
    stack = await startStack('fleet-rate-limit', {
      workers: 3,
      env: { ENGINE: 'anthropic', CLAUDE_DEFAULT_CORPUS: 'kestrel', ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: api.baseURL },
      workerEnv: { SUBAGENT_CONCURRENCY: '1' },
    });
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
    await api?.close();
  });

  it('three workers back off together: one request per retry-after window across the fleet, no task billed twice', async () => {
    const { id } = await stack.client.submit({ topic: 'How have the Kestrel River dams changed its fisheries and floods?' });
    const events = await stack.follow(id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });

    // Requests sent once the first 429 was answered and its worker had told the fleet: one already on its way then
    // could not know of it (seen 191 ms after the first 429 with two test files running side by side).
    const during = api.requests.filter((r) => r.at > wallFrom + IN_FLIGHT_MS && r.at < wallFrom + WALL_MS);
    const gaps = during.slice(1).map((r, i) => r.at - during[i]!.at);
    console.log(`[fleet-rate-limit] ${api.requests.filter((r) => r.status === 429).length} answers 429 in all; requests inside the wall at +${during.map((r) => r.at - wallFrom).join(', +')} ms; gaps ${gaps.join(', ')} ms`);
    expect(during.length).toBeGreaterThanOrEqual(3);
    expect(during.length).toBeLessThanOrEqual(Math.ceil(WALL_MS / (RETRY_AFTER_S * 1000)));
    for (const g of gaps) expect(g).toBeGreaterThanOrEqual(RETRY_AFTER_S * 1000);
    // Every research task's worker took part: three processes, one wall.
    const pids = new Set((await stack.jobs('subagents')).filter((j) => j.name === 'search').map((j) => (j.returnvalue as { stats?: { workerPid?: number } })?.stats?.workerPid));
    expect(pids.size).toBe(3);

    // No task started over: each conversation's first request was answered once, and each search was billed once.
    const firsts = api.accepted.filter((r) => r.role === 'researcher' && r.body.messages.length === 1);
    const briefs = firsts.map((r) => JSON.stringify(r.body.messages[0]));
    expect(new Set(briefs).size).toBe(briefs.length);
    const billed = api.billedSearches.map((b) => `${JSON.stringify(b.request.body.messages[0])}\u0000${b.query}`);
    expect(new Set(billed).size).toBe(billed.length);
    // Nothing the fleet sent was refused for any other reason.
    expect(api.rejected).toEqual([]);
  }, 120_000);
});

describe('the hub behind the same wall', () => {
  const prefix = uniquePrefix('gate');
  const redis = [new Redis(REDIS_URL), new Redis(REDIS_URL)];
  let api: FakeMessagesApi;
  beforeAll(async () => {
    api = await FakeMessagesApi.start();
  });
  afterAll(async () => {
    await api.close();
    for (const r of redis) r.disconnect();
    await dropPrefix(prefix);
  });

  it('a 429 met by one process holds the next request of another (the coordinator\'s judge) until retry-after has passed', async () => {
    const paused: number[] = [];
    const worker = new FleetRequestGate(redis[0]!, prefix, { onPause: (ms) => void paused.push(ms) });
    const hub = new FleetRequestGate(redis[1]!, prefix);
    const ticket = await worker.enter();
    await ticket.rateLimited(1500);
    expect(paused).toEqual([1500]);
    api.setHandler(() => reply.json({ signal: 'continue', confidence: 0.6, reason: 'still finding sources' }));
    const judge = new AnthropicCoordinatorEngine({ client: api.client(), gate: hub });
    const input: JudgeInput = { goal: 'g', round: 1, lastActions: [], yield: { newFindings: 1, newSources: 1 }, stateSummary: 's', signalHistory: { pivots: 0 } };
    const started = Date.now();
    expect((await judge.judgeVerdict(input)).signal).toBe('continue');
    expect(api.requests[0]!.at - started).toBeGreaterThanOrEqual(1400);
    // It went as the probe; its success ends the recovery, so the next request goes at once.
    const again = Date.now();
    await judge.judgeVerdict(input);
    expect(api.requests[1]!.at - again).toBeLessThan(300);
    // The latest rate-limit headers are there for /metrics.
    expect(await hub.latestHeaders()).toMatchObject({ 'anthropic-ratelimit-requests-limit': '4000' });
  });

  it('while recovering, only one request of the fleet goes out: the others wait for its answer', async () => {
    const a = new FleetRequestGate(redis[0]!, prefix, { pollMs: 20 });
    const b = new FleetRequestGate(redis[1]!, prefix, { pollMs: 20 });
    await (await a.enter()).rateLimited(200);
    const first = await a.enter(); // after the pause: the probe
    let second = false;
    const waiting = b.enter().then((t) => ((second = true), t));
    await new Promise((r) => setTimeout(r, 300));
    expect(second).toBe(false);
    await first.done(true);
    await (await waiting).done(true);
    expect(second).toBe(true);
  });
});
