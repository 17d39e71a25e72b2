import type { Plan, Run, SubagentTask } from '@orrery/protocol';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, callError, jsonOf } from '../mcp/mcp-cases';
import { waitFor } from '../support/service-processes';
import { type Stack, startStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

describe('plan review before dispatch', () => {
  let stack: Stack;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    stack = await startStack('plan-review', { workers: 1, env: { WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}` } });
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  const decide = (id: string, body: unknown) =>
    fetch(`${stack.coordinator.url}/v1/research/${id}/decision`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const proposed = async (id: string): Promise<Run> => {
    let run: Run | undefined;
    await waitFor(async () => (run = await stack.client.run(id)).status === 'needs_review', 30_000, 'the plan to be proposed');
    return run!;
  };
  const searchTasks = async (id: string) =>
    (await stack.jobs('subagents')).filter((j) => j.id!.startsWith(id) && j.name === 'search').map((j) => j.data as Extract<SubagentTask, { kind: 'search' }>);

  it('pauses in needs_review with the plan, dispatches nothing, and dispatches the edited plan it is given', async () => {
    const { id } = await stack.client.submit({ topic: 'The Kestrel River', review: 'plan', webhook: { url: receiver.url('/review') } });
    const run = await proposed(id);
    const plan = run.proposedPlan!;
    expect(plan.subtopics.length).toBeGreaterThanOrEqual(2);
    for (const s of plan.subtopics) expect(s).toMatchObject({ id: expect.any(String), query: expect.any(String), facetTerms: expect.any(Array), excludeTerms: expect.any(Array) });
    expect(plan.coverage).toMatchObject({ share: expect.any(Number), passed: expect.any(Boolean) });
    expect(run.plan).toBeUndefined();
    expect(run.rounds).toEqual([]);
    expect(await searchTasks(id)).toEqual([]);
    // The pause is a webhook event too.
    await waitFor(() => receiver.on('/review').length === 1, 20_000, 'the needs_review webhook');
    expect(JSON.parse(receiver.on('/review')[0]!.body)).toMatchObject({ type: 'run.needs_review', data: { id, status: 'needs_review' } });

    // Edited: the last subtopic dropped, the first one's query rewritten.
    const [first, ...rest] = plan.subtopics;
    const edited: Plan = { ...plan, subtopics: [{ ...first!, query: 'salmon cooperative cold storage' }, ...rest.slice(0, -1)] };
    const res = await decide(id, { action: 'continue', plan: edited });
    expect(res.status).toBe(202);
    expect(await stack.client.waitForEnd(id)).toBe('done');

    const done = await stack.client.run(id);
    expect(done.rounds[0]!.subtopicIds).toEqual(edited.subtopics.map((s) => s.id));
    const round1 = (await searchTasks(id)).filter((t) => t.round === 1).sort((a, b) => a.taskId.localeCompare(b.taskId, 'en', { numeric: true }));
    expect(round1.map((t) => [t.subtopicId, t.query])).toEqual(edited.subtopics.map((s) => [s.id, s.query]));
    expect(done.proposedPlan).toBeUndefined();
    expect((await stack.client.report(id)).sources.length).toBeGreaterThan(0);
  });

  it('refuses an edited plan whose scopes overlap or that does not fit the budget, with the reason; then takes the plan as proposed', async () => {
    const { id } = await stack.client.submit({ topic: 'The Kestrel River', review: 'plan', budget: { maxTasks: 3 } });
    const plan = (await proposed(id)).proposedPlan!;
    const scoped = plan.subtopics.filter((s) => s.facetTerms.length > 0);
    expect(scoped.length).toBeGreaterThanOrEqual(2);
    const [a, b] = scoped;
    const overlapping: Plan = { ...plan, subtopics: plan.subtopics.map((s) => (s.id === b!.id ? { ...s, facetTerms: a!.facetTerms } : s)) };
    let res = await decide(id, { action: 'continue', plan: overlapping });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(new RegExp(`subtopics ${a!.id} and ${b!.id} overlap`));

    const sameQuery: Plan = { ...plan, subtopics: plan.subtopics.map((s) => (s.id === b!.id ? { ...s, query: a!.query } : s)) };
    res = await decide(id, { action: 'continue', plan: sameQuery });
    expect(((await res.json()) as { message: string }).message).toMatch(/same query/);

    // Blank scope terms share nothing, so they would pass the overlap rule: refused instead.
    const blank: Plan = { ...plan, subtopics: plan.subtopics.map((s) => ({ ...s, facetTerms: ['', ' '] })) };
    res = await decide(id, { action: 'continue', plan: blank });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(new RegExp(`subtopic ${a!.id} has a blank term in facetTerms`));

    const many: Plan = { ...plan, subtopics: Array.from({ length: 4 }, (_, i) => ({ ...a!, id: `part-${i}`, query: `kestrel part ${i}`, facetTerms: [`term-${i}`], excludeTerms: [] })) };
    res = await decide(id, { action: 'continue', plan: many });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/does not fit the budget/);

    res = await decide(id, { action: 'continue', plan: { ...plan, subtopics: [{ ...a!, id: 'Not An Id' }] } });
    expect(res.status).toBe(400);
    expect((await stack.client.run(id)).status).toBe('needs_review');

    expect((await decide(id, { action: 'continue' })).status).toBe(202);
    expect(await stack.client.waitForEnd(id)).toBe('done');
    expect((await stack.client.run(id)).rounds[0]!.subtopicIds).toEqual(plan.subtopics.map((s) => s.id));
  });

  it('a stop at plan review ends the run with nothing dispatched; a plan for a run not in plan review is refused', async () => {
    const { id } = await stack.client.submit({ topic: 'The Kestrel River', review: 'plan' });
    await proposed(id);
    expect((await decide(id, { action: 'stop' })).status).toBe(202);
    expect((await stack.client.run(id)).status).toBe('cancelled');
    expect(await searchTasks(id)).toEqual([]);

    const other = await stack.client.submit({ topic: 'The Kestrel River' });
    expect(await stack.client.waitForEnd(other.id)).toBe('done');
    const plan = (await stack.client.run(other.id)).plan!;
    const res = await decide(other.id, { action: 'continue', plan });
    expect(res.status).toBe(409);
  });

  it('over MCP: research with review "plan" and wait returns the plan; answer_review dispatches the edited one', async () => {
    const client = new Client({ name: 'orrery-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.coordinator.url}/mcp`)));
    try {
      const paused = jsonOf<{ id: string; status: string; proposedPlan: Plan }>(await call(client, 'research', { topic: 'The Kestrel River', review: 'plan', wait: true, timeout_seconds: 60 }));
      expect(paused.status).toBe('needs_review');
      const plan = paused.proposedPlan;
      expect(plan.subtopics.length).toBeGreaterThanOrEqual(2);
      const status = jsonOf<{ proposedPlan: Plan }>(await call(client, 'research_status', { id: paused.id }));
      expect(status.proposedPlan).toEqual(plan);
      const [a, b] = plan.subtopics.filter((s) => s.facetTerms.length > 0);
      expect(await callError(client, 'answer_review', { id: paused.id, action: 'continue', plan: { ...plan, subtopics: plan.subtopics.map((s) => (s.id === b!.id ? { ...s, facetTerms: a!.facetTerms } : s)) } })).toMatch(/overlap/);
      const edited: Plan = { ...plan, subtopics: plan.subtopics.slice(0, 2) };
      expect(jsonOf(await call(client, 'answer_review', { id: paused.id, action: 'continue', plan: edited }))).toMatchObject({ id: paused.id });
      expect(await stack.client.waitForEnd(paused.id)).toBe('done');
      expect((await stack.client.run(paused.id)).rounds[0]!.subtopicIds).toEqual(edited.subtopics.map((s) => s.id));
    } finally {
      await client.close();
    }
  });
});
