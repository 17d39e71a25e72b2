/**
 * What a review may grant: a tenant's extra budget lifts its run at most to the server's default budget and what
 * its daily quotas have left, over REST and MCP alike; only an admin key lifts a run toward the hard caps. A refusal
 * is 403, names each dimension and the most the key may add, and changes nothing.
 */
import type { Run } from '@orrery/protocol';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callError } from '../mcp/mcp-cases';
import { waitFor } from '../support/service-processes';
import { type Stack, startStack } from '../support/stack';
import { newApiKey } from '../support/test-env';

const A = newApiKey();
const ADMIN = newApiKey();
const DEFAULTS = { BUDGET_MAX_TASKS: '40', BUDGET_MAX_COST_USD: '25', BUDGET_CAP_TASKS: '200', BUDGET_CAP_COST_USD: '250' };

describe('extra budget at review', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('review-budget', { workers: 1, env: { API_KEYS: A, ADMIN_API_KEYS: ADMIN, QUOTA_COST_USD_PER_DAY: '2.5', ...DEFAULTS } });
  });
  afterAll(async () => stack?.stop());

  const call = (key: string, path: string, init: RequestInit = {}) =>
    fetch(`${stack.coordinator.url}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } });
  const run = async (key: string, id: string) => (await (await call(key, `/v1/research/${id}`)).json()) as Run;
  const submitForReview = async (budget?: Record<string, number>): Promise<Run> => {
    const res = await call(A, '/v1/research', { method: 'POST', body: JSON.stringify({ topic: 'The Kestrel River', review: 'plan', ...(budget ? { budget } : {}) }) });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    let r: Run | undefined;
    await waitFor(async () => (r = await run(A, id)).status === 'needs_review', 30_000, 'the plan to be proposed');
    return r!;
  };
  const decide = (key: string, id: string, body: unknown) => call(key, `/v1/research/${id}/decision`, { method: 'POST', body: JSON.stringify(body) });

  it('refuses a tenant who lifts its own run past the defaults, over REST and MCP; an admin key lifts it up to the caps', async () => {
    const paused = await submitForReview();
    expect(paused.budget).toMatchObject({ maxTasks: 40, maxCostUsd: 25 });
    const res = await decide(A, paused.id, { action: 'continue', extraBudget: { maxTasks: 100_000, maxTokens: 8_000_000, maxCostUsd: 225 } });
    expect(res.status).toBe(403);
    const body = (await res.json()) as { message: string; maxExtraBudget: Record<string, number> };
    expect(body.message).toContain("maxTasks +100000 is more than this key may add: at most +0 (the run has 40; the server's default budget is 40)");
    expect(body.message).toMatch(/maxTokens \+8000000 is more than this key may add: at most \+0/);
    expect(body.message).toMatch(/maxCostUsd \+\$225\.00 is more than this key may add: at most \+\$0\.00/);
    expect(body.message).toMatch(/Only an admin key may lift a run past the server’s default budget/);
    expect(body.maxExtraBudget).toEqual({ maxTokens: 0, maxTasks: 0, maxRounds: 0, maxWallSeconds: 0, maxCostUsd: 0 });

    const client = new Client({ name: 'orrery-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.coordinator.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${A}` } } }));
    try {
      expect(await callError(client, 'answer_review', { id: paused.id, action: 'continue', extra_budget: { maxTasks: 160 } })).toMatch(/maxTasks \+160 is more than this key may add: at most \+0/);
    } finally {
      await client.close();
    }
    const unchanged = await run(A, paused.id);
    expect(unchanged.status).toBe('needs_review');
    expect(unchanged.budget).toEqual(paused.budget);
    expect(unchanged.reviewAnswer).toBeUndefined();

    // Past the hard caps nobody may lift it (400); up to them an admin key may.
    expect((await decide(ADMIN, paused.id, { action: 'continue', extraBudget: { maxTasks: 161 } })).status).toBe(400);
    expect((await decide(ADMIN, paused.id, { action: 'continue', extraBudget: { maxTasks: 160, maxCostUsd: 225 } })).status).toBe(202);
    expect((await run(A, paused.id)).budget).toMatchObject({ maxTasks: 200, maxCostUsd: 250 });
    await waitFor(async () => (await run(A, paused.id)).status === 'done', 60_000, 'the lifted run to finish');
  });

  it('lets a tenant lift a run it lowered back toward the defaults, within what its daily dollars have left', async () => {
    const paused = await submitForReview({ maxTasks: 5, maxCostUsd: 1 });
    // $2.50 a day, nothing spent yet (the corpus engine is free): the run may reach $2.50, so $1.50 more.
    const res = await decide(A, paused.id, { action: 'continue', extraBudget: { maxTasks: 10, maxCostUsd: 5 } });
    expect(res.status).toBe(403);
    const body = (await res.json()) as { message: string; maxExtraBudget: Record<string, number> };
    expect(body.message).toContain("maxCostUsd +$5.00 is more than this key may add: at most +$1.50 (the run has $1.00; this key's daily quota has $2.50 left and the run has spent $0.00)");
    expect(body.message).not.toMatch(/maxTasks/);
    expect(body.maxExtraBudget).toMatchObject({ maxTasks: 35, maxCostUsd: 1.5 });

    expect((await decide(A, paused.id, { action: 'continue', extraBudget: { maxTasks: 10, maxCostUsd: 1.5 } })).status).toBe(202);
    expect((await run(A, paused.id)).budget).toMatchObject({ maxTasks: 15, maxCostUsd: 2.5 });
  });
});
