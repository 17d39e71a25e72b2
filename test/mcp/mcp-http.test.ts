/**
 * The MCP server over Streamable HTTP at /mcp on a real coordinator and worker (real Redis, BullMQ), driven by
 * the official MCP client SDK: the same keys, run ownership and quotas as REST, DNS-rebinding protection on
 * loopback, and a judge model that times out answering continue.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeMessagesApi } from '../support/fake-messages-api';
import { type Stack, startStack } from '../support/stack';
import { newApiKey, rawRequest, redisClient } from '../support/test-env';
import { badArgumentCases, call, callError, jsonOf, judgeCases, researchWithProgress, searchFetchRoundTrip, TOOLS } from './mcp-cases';

const A = newApiKey();
const B = newApiKey();
const JUDGE_TIMEOUT_MS = 300;

describe('MCP over Streamable HTTP (/mcp)', () => {
  let stack: Stack;
  let slowJudge: FakeMessagesApi;
  const clients: Client[] = [];
  const connect = async (key: string) => {
    const client = new Client({ name: 'orrery-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.coordinator.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    // The judge model is a stub that answers long after JUDGE_TIMEOUT_MS.
    slowJudge = await FakeMessagesApi.start({ handler: () => new Promise((r) => setTimeout(() => r({ kind: 'error', status: 529, errorType: 'overloaded_error', message: 'Overloaded' }), 3000)) });
    stack = await startStack('mcp-http', {
      workers: 1,
      env: { API_KEYS: `${A},${B}`, HOST: '127.0.0.1', ANTHROPIC_API_KEY: 'sk-ant-test-fake', ANTHROPIC_BASE_URL: slowJudge.baseURL, ANTHROPIC_MAX_RETRIES: '0', JUDGE_TIMEOUT_MS: String(JUDGE_TIMEOUT_MS), SIMULATED_LATENCY_MS: '1500' },
    });
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await stack?.stop();
    await slowJudge?.close();
  });

  it('answers 401 without a key, and 403 to a Host that is not loopback (DNS rebinding)', async () => {
    const init = { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) };
    expect((await fetch(`${stack.coordinator.url}/mcp`, init)).status).toBe(401);
    expect((await fetch(`${stack.coordinator.url}/mcp`, { ...init, headers: { ...init.headers, authorization: 'Bearer wrong' } })).status).toBe(401);
    const authed = { ...init.headers, authorization: `Bearer ${A}` };
    const raw = (headers: Record<string, string>) => rawRequest(`${stack.coordinator.url}/mcp`, { method: 'POST', headers: { ...authed, ...headers }, body: init.body });
    // A 2025-era client (no per-request envelope) is served by the stateless legacy path.
    const legacy = await raw({ 'mcp-protocol-version': '2025-06-18' });
    expect(legacy.status).toBe(200);
    expect(legacy.body).toContain('"name":"judge"');
    expect((await raw({ host: 'evil.example' })).status).toBe(403);
    expect((await raw({ host: `evil.example:${new URL(stack.coordinator.url).port}` })).status).toBe(403);
    expect((await raw({ origin: 'http://evil.example' })).status).toBe(403);
  });

  it('answers every method but POST with 405 and Allow: POST, TRACE included, never 500', async () => {
    for (const method of ['TRACE', 'GET', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'HEAD']) {
      const res = await rawRequest(`${stack.coordinator.url}/mcp`, { method, headers: { authorization: `Bearer ${A}`, accept: 'application/json, text/event-stream' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.allow, method).toBe('POST');
      if (method !== 'HEAD') expect(JSON.parse(res.body), method).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
    }
  });

  it('lists the tools and resource templates', async () => {
    const client = await connect(A);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(TOOLS);
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate).sort();
    expect(templates).toEqual(['orrery://runs/{id}/decisions', 'orrery://runs/{id}/report', 'orrery://runs/{id}/report.{format}']);
  });

  // The research call itself may take 240 s on a loaded machine (researchWithProgress); the test gives it that.
  it('research with wait reaches a cited report, progress in order; the run is the caller’s only', { timeout: 300_000 }, async () => {
    const a = await connect(A);
    const { id, report } = await researchWithProgress(a);
    const status = jsonOf(await call(a, 'research_status', { id }));
    expect(status).toMatchObject({ id, status: 'done' });
    // The itemised bill rides along (the corpus engine's costs nothing), and the report's footer carries it.
    expect(status).toMatchObject({ bill: { totalUsd: 0, byPhase: {}, unattributedUsd: 0, tools: { webSearches: { count: 0, usd: 0 } } } });
    expect(report).toMatch(/^- Total \$0\.0000$/m);
    expect(jsonOf<{ bill: { totalUsd: number } }>(await call(a, 'list_runs', {})).bill).toMatchObject({ totalUsd: 0 });
    const json = jsonOf<{ sections: unknown[]; sources: unknown[] }>(await call(a, 'get_report', { id, format: 'json' }));
    expect(json.sources.length).toBeGreaterThan(0);
    const res = await a.readResource({ uri: `orrery://runs/${id}/report` });
    expect((res.contents[0] as { text: string }).text).toBe(report);
    const decisions = JSON.parse((await a.readResource({ uri: `orrery://runs/${id}/decisions` })).contents[0]!.text as string) as Array<{ decisionType: string }>;
    expect(decisions.some((d) => d.decisionType === 'judge')).toBe(true);
    expect(jsonOf<{ runs: Array<{ id: string }> }>(await call(a, 'list_runs', {})).runs.map((r) => r.id)).toContain(id);

    const b = await connect(B);
    expect(await callError(b, 'research_status', { id })).toMatch(/not found/);
    expect(await callError(b, 'get_report', { id })).toMatch(/not found/);
    expect(await callError(b, 'cancel_research', { id })).toMatch(/not found/);
    expect(jsonOf<{ runs: unknown[] }>(await call(b, 'list_runs', {})).runs).toEqual([]);
    await expect(b.readResource({ uri: `orrery://runs/${id}/report` })).rejects.toThrow(/not found/);
  });

  it('research without wait returns the id at once; cancel_research cancels it', async () => {
    const a = await connect(A);
    const started = jsonOf<{ id: string; status: string }>(await call(a, 'research', { topic: 'Kestrel River floods', engine: 'simulated' }));
    expect(started.status).toBe('queued');
    const cancelled = jsonOf(await call(a, 'cancel_research', { id: started.id }));
    expect(cancelled).toMatchObject({ id: started.id });
    expect(['cancelled', 'done']).toContain(cancelled.status);
  });

  /** Starts a slow simulated run with wait on a client of its own, and closes that client at the first progress notification. */
  async function leaveMidWait(a: Client, topic: string, cancelOnDisconnect: boolean): Promise<{ id: string; statusAfter: string }> {
    const leaving = await connect(A);
    const args = { topic, engine: 'simulated', wait: true, ...(cancelOnDisconnect ? { cancel_on_disconnect: true } : {}) };
    await leaving.callTool({ name: 'research', arguments: args }, { onprogress: () => void leaving.close() }).then(
      () => expect.unreachable('the client went away'),
      () => undefined,
    );
    const runs = jsonOf<{ runs: Array<{ id: string; topic: string }> }>(await call(a, 'list_runs', {})).runs;
    const id = runs.find((r) => r.topic === topic)!.id;
    await new Promise((r) => setTimeout(r, 500));
    return { id, statusAfter: String(jsonOf(await call(a, 'research_status', { id })).status) };
  }

  it('a client that goes away mid-wait does not cancel its run, unless it asked to', async () => {
    const a = await connect(A);
    const kept = await leaveMidWait(a, 'Kestrel River bridges', false);
    expect(['planning', 'researching', 'synthesizing']).toContain(kept.statusAfter);
    let status = kept.statusAfter;
    for (let i = 0; i < 150 && status !== 'done'; i++) {
      await new Promise((r) => setTimeout(r, 200));
      status = String(jsonOf(await call(a, 'research_status', { id: kept.id })).status);
    }
    expect(status).toBe('done');
    // The client's abort reaches the server when the call's stream closes or the cancellation arrives.
    const dropped = await leaveMidWait(a, 'Kestrel River ferries', true);
    status = dropped.statusAfter;
    for (let i = 0; i < 50 && status !== 'cancelled'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = String(jsonOf(await call(a, 'research_status', { id: dropped.id })).status);
    }
    expect(status).toBe('cancelled');
  });

  it('judge gives continue, stop and pivot, honours the cooldown, and a timed-out judge model counts as continue; every call is logged', async () => {
    const a = await connect(A);
    await judgeCases(a);
    const unsure = jsonOf(await call(a, 'judge', { goal: 'g', step: 3, state_summary: 'nothing yet', recent_actions: ['look around'] }));
    expect(unsure).toMatchObject({ signal: 'continue', level: 'L2', rule: 'judge-model-timeout' });
    expect(slowJudge.requests.length).toBeGreaterThan(0);
    const redis = redisClient();
    try {
      const logged = await redis.xrevrange(`${stack.prefix}:mcp:judge-calls`, '+', '-', 'COUNT', 1);
      const decision = JSON.parse(logged[0]![1][1]!) as { decisionType: string; level: string; signals: Record<string, unknown> };
      expect(decision).toMatchObject({ decisionType: 'step-judge', level: 'L2', signals: { signal: 'continue', rule: 'judge-model-timeout' } });
      expect(decision.signals.latencyMs).toBeGreaterThanOrEqual(JUDGE_TIMEOUT_MS - 5);
      expect(String(decision.signals.input)).toContain('look around');
    } finally {
      redis.disconnect();
    }
  });

  it("the deployment's kill switch stops the MCP judge's model too", async () => {
    const a = await connect(A);
    const redis = redisClient();
    try {
      await redis.set(`${stack.prefix}:judge:switch`, JSON.stringify({ enabled: false }));
      const before = slowJudge.requests.length;
      const v = jsonOf(await call(a, 'judge', { goal: 'g', step: 3, state_summary: 'nothing yet', recent_actions: ['look around'] }));
      expect(v).toMatchObject({ signal: 'continue', level: 'L0', rule: 'unsure', route: 'escalate' });
      expect(slowJudge.requests.length).toBe(before);
    } finally {
      await redis.del(`${stack.prefix}:judge:switch`);
      redis.disconnect();
    }
  });

  it('search and fetch round-trip an id', async () => {
    await searchFetchRoundTrip(await connect(A), 'sotu', 'tariff protection of American industry');
  });

  it('bad arguments are tool errors naming the field, and create no run', async () => {
    await badArgumentCases(await connect(A));
  });
});
