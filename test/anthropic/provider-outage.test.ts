/**
 * The provider's breaker: the fake Messages API answers 529 for a while in the middle of a Claude run (a minute in
 * the drill; OUTAGE_MS here, the same behaviour). The run must end `done` with the findings an undisturbed run of the
 * same question gets, no task may be counted failed, and once the breaker is open only its probes may reach the
 * outage: one per cool-down across the fleet.
 */
import type { StoredRunEvent } from '@orrery/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeMessagesApi } from '../support/fake-messages-api';
import { researchScript } from '../support/fake-research-script';
import { type Stack, startStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

const OUTAGE_MS = Number(process.env['OUTAGE_MS'] ?? 15_000);
const COOLDOWN_MS = 3_000;
const THRESHOLD = 5;
const TOPIC = 'How have the Kestrel River dams changed its fisheries and floods?';

describe('a provider outage in the middle of a run', () => {
  let api: FakeMessagesApi;
  let stack: Stack;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    api = await FakeMessagesApi.start();
    receiver = await WebhookReceiver.start();
    api.scriptByRole(researchScript({ rounds: 2, subtopics: 3 }));
    stack = await startStack('provider-outage', {
      workers: 3,
      env: {
        ENGINE: 'anthropic',
        CLAUDE_DEFAULT_CORPUS: 'kestrel',
        ANTHROPIC_API_KEY: 'test-key',
        ANTHROPIC_BASE_URL: api.baseURL,
        BREAKER_THRESHOLD: String(THRESHOLD),
        BREAKER_COOLDOWN_MS: String(COOLDOWN_MS),
        WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`,
      },
      workerEnv: { SUBAGENT_CONCURRENCY: '1' },
    });
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
    await api?.close();
    await receiver?.close();
  });

  /** A run of the question, its events, its record, and what GET /v1/research/:id said while it waited. */
  const research = async () => {
    const { id } = await stack.client.submit({ topic: TOPIC, webhook: { url: receiver.url(`/hooks`) } });
    const seen: Array<{ status: string; waiting?: { reason: string } }> = [];
    let polling = true;
    const poll = (async () => {
      while (polling) {
        seen.push((await stack.client.run(id)) as never);
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    const events = await stack.follow(id);
    polling = false;
    await poll;
    return { id, events, run: await stack.client.run(id), seen };
  };
  const failedEvents = (events: StoredRunEvent[]) => events.filter((e) => e.type === 'task.failed');

  /** The undisturbed run of the question and the Messages requests it made, once for both outages. */
  let calm: Awaited<ReturnType<typeof research>> | undefined;
  let calmRequests = 0;
  const undisturbed = async () => {
    if (!calm) {
      const before = api.requests.length;
      calm = await research();
      calmRequests = api.requests.length - before;
    }
    return calm;
  };
  let outagesSeen = 0;

  /**
   * The same question again, the API down for OUTAGE_MS from the request `afterRequests` past the undisturbed run's
   * (with `role`, the first of that role from there on). The run must wait it out through the fleet's breaker.
   */
  const waitsOut = async (label: string, afterRequests: number, role?: string) => {
    const calm = await undisturbed();
    expect(calm.run.status).toBe('done');
    const before = api.requests.length;
    api.outage.after(before + afterRequests, OUTAGE_MS, 'overloaded', role);
    const hit = await research();
    const { from, until } = api.outage.window;
    expect(from).toBeGreaterThan(0);
    const first = api.requests.find((r) => r.at >= from && r.status === 529);
    if (role) expect(first?.role).toBe(role);

    const during = api.requests.filter((r) => r.at >= from - 50 && r.at < until);
    // The breaker opens on the THRESHOLD-th outage answer; any request later than that and before the outage ends is a probe,
    // or a request that was already on its way.
    const answered = api.outage.answered.filter((at) => at >= from);
    expect(answered.length).toBeGreaterThanOrEqual(THRESHOLD);
    const opened = answered[THRESHOLD - 1]!;
    const afterOpen = during.filter((r) => r.at > opened);
    console.log(
      `[provider-outage] ${label}: undisturbed: ${calmRequests} requests, ${calm.run.counters.findings} findings; outage ${OUTAGE_MS} ms from request #${before + afterRequests + 1}${role ? ` (the first ${role} call)` : ''}: ` +
        `${during.length} requests inside it (${answered.length} answered 529), at +${during.map((r) => r.at - from).join(', +')} ms; ` +
        `the run took ${Date.parse(hit.run.finishedAt!) - Date.parse(hit.run.createdAt)} ms, the undisturbed one ${Date.parse(calm.run.finishedAt!) - Date.parse(calm.run.createdAt)} ms`,
    );

    expect(hit.run.status).toBe('done');
    expect(hit.run.counters.findings).toBe(calm.run.counters.findings);
    expect(hit.run.counters.sources).toBe(calm.run.counters.sources);
    expect(hit.run.counters.tasksFailed).toBe(0);
    expect(failedEvents(hit.events)).toEqual([]);
    expect(hit.run.rounds.map((r) => [r.taskIds.length, r.failed, r.newFindings])).toEqual(calm.run.rounds.map((r) => [r.taskIds.length, r.failed, r.newFindings]));
    expect((await stack.jobs('subagents')).filter((j) => j.failedReason)).toEqual([]);
    // Once open: one probe per cool-down across the fleet, plus at most one request per process already on its way.
    expect(afterOpen.length).toBeLessThanOrEqual(Math.ceil(OUTAGE_MS / COOLDOWN_MS) + 4);
    expect(answered.length).toBeLessThanOrEqual(THRESHOLD + 4 + Math.ceil(OUTAGE_MS / COOLDOWN_MS));

    // Every surface told the run waited, and why: its events, its decision log, GET /v1/research/:id, a webhook.
    const waiting = hit.events.find((e) => e.type === 'run.waiting');
    expect(waiting).toMatchObject({ waiting: { reason: expect.stringContaining('overloaded (529)') } });
    expect(hit.events.find((e) => e.type === 'run.resumed')).toBeDefined();
    const breakerDecisions = hit.events.flatMap((e) => (e.type === 'decision' && e.decision.decisionType === 'provider-breaker' ? [e.decision.conclusion] : []));
    expect(breakerDecisions).toEqual([expect.stringMatching(/^wait: /), expect.stringMatching(/answers again/)]);
    expect(hit.seen.some((r) => r.status !== 'done' && r.waiting?.reason.includes('overloaded (529)'))).toBe(true);
    expect((hit.run as { waiting?: unknown }).waiting).toBeUndefined();
    const hooks = receiver.received.map((h) => JSON.parse(h.body) as { type: string; data: { id: string; waiting?: { reason: string } } }).filter((h) => h.data.id === hit.id);
    expect(hooks.filter((h) => h.type === 'run.waiting')).toEqual([expect.objectContaining({ data: expect.objectContaining({ waiting: expect.objectContaining({ reason: expect.stringContaining('529') }) }) })]);
    // The undisturbed run never waited.
    expect(calm.events.some((e) => e.type === 'run.waiting')).toBe(false);
    // And the operator's view: the breaker counted this outage and is closed again.
    outagesSeen += 1;
    const metrics = await (await fetch(`${stack.coordinator.url}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`^orrery_provider_outages_total ${outagesSeen}$`, 'm'));
    expect(metrics).toMatch(/^orrery_provider_breaker_open 0$/m);
  };

  it('waits the outage out: done, the same findings, nothing failed, only probes sent into it', async () => {
    // The API goes down once half of the undisturbed run's requests have been answered: the workers' calls meet it.
    await undisturbed();
    await waitsOut('mid-run', Math.floor(calmRequests / 2));
  }, 240_000);

  // The hub's own calls wait behind the same breaker: an engine built before the fleet's gate was set (the MCP server
  // builds one in its constructor) once sent them through a gate of the coordinator's own, outside the fleet's.
  it('waits it out when the outage meets the hub’s own call first', async () => {
    await waitsOut('at the hub', 0, 'gap-finder');
  }, 240_000);
});
