/**
 * A plan review asked of the person over MCP (elicitation) on a real coordinator and worker (real Redis, BullMQ),
 * driven by the official client SDK: a 2025-era client that declared `elicitation` gets a session (`mcp-session-id`)
 * and is asked to approve, revise in words or stop the plan in place; the answers go through the same decision rule as
 * REST. The session is its key's alone, and its requests pass the same body checks. Any other client stays stateless.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type ElicitRequest, type ElicitResult, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Run, SubagentTask } from '@orrery/protocol';
import { OrreryClient } from '../../apps/cli/src/client/orrery-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDatedCorpus } from '../support/dated-corpus';
import { type Stack, startStack } from '../support/stack';
import { newApiKey, rawRequest } from '../support/test-env';
import { call, jsonOf, textOf } from './mcp-cases';

const CORPUS = writeDatedCorpus(mkdtempSync(join(tmpdir(), 'dated-kestrel-')));
const A = newApiKey();
const B = newApiKey();
const C = newApiKey();
const SESSIONS_PER_KEY = 3;
const TOPIC = 'The Kestrel River: fishery, floods and navigation';
const LONG = { timeout: 300_000, resetTimeoutOnProgress: true };

type Answer = (req: ElicitRequest['params'], round: number) => ElicitResult | Promise<ElicitResult>;

describe('MCP sessions and plan review by elicitation', () => {
  let stack: Stack;
  const clients: Client[] = [];
  /** A client of `key`; with `answer`, it declares elicitation and answers each form with it. `wire` collects what the server sent on its POSTs. */
  const connect = async (key: string, answer?: Answer, era: 'legacy' | 'auto' = 'legacy') => {
    const wire: Array<Promise<string>> = [];
    const asked: Array<ElicitRequest['params']> = [];
    const client = new Client({ name: 'orrery-test', version: '1.0.0' }, { versionNegotiation: { mode: era }, ...(answer ? { capabilities: { elicitation: {} } } : {}) });
    if (answer) client.setRequestHandler('elicitation/create', (req) => (asked.push(req.params), answer(req.params, asked.length)));
    const transport = new StreamableHTTPClientTransport(new URL(`${stack.coordinator.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
      fetch: async (url, init) => {
        const res = await fetch(url, init);
        if (init?.method === 'POST') wire.push(res.clone().text().catch(() => ''));
        return res;
      },
    });
    await client.connect(transport);
    clients.push(client);
    return { client, transport, asked, sent: async () => (await Promise.all(wire)).join('\n') };
  };
  const rest = (key: string) => new OrreryClient(stack.coordinator.url, key);
  const searchTasks = async (id: string) =>
    (await stack.jobs('subagents')).filter((j) => j.id!.startsWith(id) && j.name === 'search').map((j) => j.data as Extract<SubagentTask, { kind: 'search' }>);
  const mcp = (key: string, sessionId: string | undefined, method: string, body?: string) =>
    rawRequest(`${stack.coordinator.url}/mcp`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...(sessionId ? { 'mcp-session-id': sessionId } : {}) },
      ...(body !== undefined ? { body } : {}),
    });

  beforeAll(async () => {
    stack = await startStack('mcp-elicit', {
      workers: 1,
      env: { API_KEYS: `${A},${B},${C}`, HOST: '127.0.0.1', CORPORA: `gazette=${CORPUS}`, DEFAULT_CORPUS: 'gazette', MCP_SESSIONS_PER_KEY: String(SESSIONS_PER_KEY), SIMULATED_LATENCY_MS: '1500' },
    });
  }, 120_000);
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await stack?.stop();
  });

  it('a client with elicitation revises the plan once in words, then approves it; the revised plan is the one dispatched', { timeout: 300_000 }, async () => {
    const { client, transport, asked, sent } = await connect(A, (_, round) => ({
      action: 'accept',
      content: round === 1 ? { decision: 'revise', feedback: 'leave out the 1800s; add tariffs' } : { decision: 'approve', feedback: '' },
    }));
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const r = await call(client, 'research', { topic: TOPIC, review: { mode: 'plan' }, wait: true, timeout_seconds: 240 }, LONG);
    const { id, status } = r.structuredContent as { id: string; status: string };
    expect(status).toBe('done');
    expect(textOf(r)).toMatch(/\[\d+\]/);

    // Asked twice: the plan as proposed, then as revised, each a form of a decision and feedback.
    expect(asked).toHaveLength(2);
    for (const a of asked) {
      expect(a).toMatchObject({ requestedSchema: { type: 'object', properties: { decision: { type: 'string', enum: ['approve', 'revise', 'stop'] }, feedback: { type: 'string' } }, required: ['decision'] } });
    }
    const [first, second] = asked.map((a) => a.message);
    expect(first).toContain(`run ${id}`);
    expect(first).toMatch(/^1\. .+ \(query: .+\)$/m);
    expect(first).not.toMatch(/Tariffs/);
    expect(second).toMatch(/Years left out: 1800–1899/);
    expect(second).toMatch(/^\d+\. Tariffs/m);
    expect(second).toContain('Revised by "leave out the 1800s; add tariffs"');
    expect(await sent()).toContain('"method":"elicitation/create"');

    // The decisions went through the run's own rule: one revision recorded, and round 1 searched the revised plan.
    const run = (await (await fetch(`${stack.coordinator.url}/v1/research/${id}`, { headers: { authorization: `Bearer ${A}` } })).json()) as Run;
    expect(run.planRevisions).toHaveLength(1);
    expect(run.plan!.excludeYears).toEqual([{ from: 1800, to: 1899 }]);
    const tariffs = run.plan!.subtopics.find((s) => s.facetTerms.includes('tariffs'))!;
    expect(tariffs).toBeDefined();
    expect(run.rounds[0]!.subtopicIds).toContain(tariffs.id);
    const round1 = (await searchTasks(id)).filter((t) => t.round === 1);
    expect(round1.map((t) => t.subtopicId).sort()).toEqual(run.rounds[0]!.subtopicIds.slice().sort());
  });

  it('a declined plan review leaves the run in review, and answer_review still answers it', { timeout: 300_000 }, async () => {
    const { client, asked } = await connect(A, () => ({ action: 'decline' }));
    const paused = jsonOf<{ id: string; status: string; proposedPlan: { subtopics: unknown[] }; message: string }>(
      await call(client, 'research', { topic: TOPIC, review: { mode: 'plan' }, wait: true, timeout_seconds: 240 }, LONG),
    );
    expect(asked).toHaveLength(1);
    expect(paused).toMatchObject({ status: 'needs_review', proposedPlan: { subtopics: expect.any(Array) } });
    expect(paused.message).toMatch(/declined.*waits in review.*answer_review/);
    expect((await rest(A).run(paused.id)).status).toBe('needs_review');
    expect(await searchTasks(paused.id)).toEqual([]);

    expect(jsonOf(await call(client, 'answer_review', { id: paused.id, action: 'continue' }))).toMatchObject({ id: paused.id });
    expect(await rest(A).waitForEnd(paused.id)).toBe('done');
  });

  it('a revision without feedback is asked again, saying why; stop cancels the run before anything is searched', { timeout: 300_000 }, async () => {
    const { client, asked } = await connect(A, (_, round) => ({ action: 'accept', content: { decision: round === 1 ? 'revise' : 'stop' } }));
    const stopped = jsonOf<{ id: string; status: string; message: string }>(await call(client, 'research', { topic: TOPIC, review: { mode: 'plan' }, wait: true, timeout_seconds: 240 }, LONG));
    expect(asked).toHaveLength(2);
    expect(asked[1]!.message).toContain('Revise takes feedback');
    expect(stopped).toMatchObject({ status: 'cancelled', message: expect.stringMatching(/stopped at review/) });
    expect(await searchTasks(stopped.id)).toEqual([]);
  });

  it('a client without elicitation stays stateless and is never asked: the review comes back to it, as before', { timeout: 300_000 }, async () => {
    const { client, transport, sent } = await connect(A);
    expect(transport.sessionId).toBeUndefined();
    const paused = jsonOf<{ id: string; status: string; message: string }>(await call(client, 'research', { topic: TOPIC, review: { mode: 'plan' }, wait: true, timeout_seconds: 240 }, LONG));
    expect(paused).toMatchObject({ status: 'needs_review', message: expect.stringMatching(/^the run waits for review: answer it with answer_review/) });
    expect(await sent()).not.toContain('elicitation/create');
    await call(client, 'cancel_research', { id: paused.id });
  });

  it('a 2026-07-28 client is served statelessly: no session and no push elicitation, the review comes back to it', { timeout: 300_000 }, async () => {
    const { client, transport, asked } = await connect(A, () => ({ action: 'accept', content: { decision: 'approve' } }), 'auto');
    expect(transport.protocolVersion).toBe('2026-07-28');
    expect(transport.sessionId).toBeUndefined();
    const paused = jsonOf<{ id: string; status: string }>(await call(client, 'research', { topic: TOPIC, review: { mode: 'plan' }, wait: true, timeout_seconds: 240 }, LONG));
    expect(paused.status).toBe('needs_review');
    expect(asked).toEqual([]);
    await call(client, 'cancel_research', { id: paused.id });
  });

  it('a session client that goes away mid-wait stops following its run, and cancels it only if it asked to', { timeout: 60_000 }, async () => {
    const { client: observer } = await connect(A);
    const statusAfterLeaving = async (topic: string, cancelOnDisconnect: boolean) => {
      const { client } = await connect(A, () => ({ action: 'cancel' }));
      const args = { topic, engine: 'simulated', wait: true, ...(cancelOnDisconnect ? { cancel_on_disconnect: true } : {}) };
      await client.callTool({ name: 'research', arguments: args }, { onprogress: () => void client.close() }).then(
        () => expect.unreachable('the client went away'),
        () => undefined,
      );
      const id = jsonOf<{ runs: Array<{ id: string; topic: string }> }>(await call(observer, 'list_runs', {})).runs.find((r) => r.topic === topic)!.id;
      let status = (await rest(A).run(id)).status;
      for (let i = 0; i < 50 && status !== 'cancelled'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await rest(A).run(id)).status;
      }
      return status;
    };
    expect(await statusAfterLeaving('Kestrel River ferries', true)).toBe('cancelled');
    expect(await statusAfterLeaving('Kestrel River bridges', false)).not.toBe('cancelled');
  });

  it("a session is its key's alone: another key's requests with its id are refused, as an unknown id is, and reach nothing", async () => {
    const { client, transport } = await connect(A, () => ({ action: 'cancel' }));
    const sessionId = transport.sessionId!;
    expect(sessionId).toBeDefined();
    const runsBefore = jsonOf<{ runs: unknown[] }>(await call(client, 'list_runs', {})).runs.length;
    const start = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'research', arguments: { topic: 'Kestrel River ferries' } } });
    const unknown = await mcp(B, '00000000-0000-4000-8000-000000000000', 'POST', start);
    expect(unknown.status).toBe(404);
    for (const method of ['POST', 'GET', 'DELETE']) {
      const res = await mcp(B, sessionId, method, method === 'POST' ? start : undefined);
      expect(res.status, method).toBe(404);
      expect(res.body, method).toBe(unknown.body);
    }
    // Nothing ran as A, and the session still serves A.
    expect(jsonOf<{ runs: unknown[] }>(await call(client, 'list_runs', {})).runs).toHaveLength(runsBefore);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    // Without a key the session id opens nothing either.
    expect((await rawRequest(`${stack.coordinator.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', 'mcp-session-id': sessionId }, body: start })).status).toBe(401);
  });

  it("a session's requests pass the same body checks; GET opens its stream, DELETE ends it; other methods are 405", async () => {
    // A raw 2025-era client: initialize, then nothing but what the test sends. One that can show no form gets no session.
    const initialize = (capabilities: object) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities, clientInfo: { name: 'raw', version: '1' } } });
    for (const capabilities of [{}, { elicitation: { url: {} } }]) {
      const plain = await mcp(C, undefined, 'POST', initialize(capabilities));
      expect(plain.status).toBe(200);
      expect(plain.headers['mcp-session-id'], JSON.stringify(capabilities)).toBeUndefined();
    }
    const init = await mcp(C, undefined, 'POST', initialize({ elicitation: { form: {} } }));
    expect(init.status).toBe(200);
    const sessionId = init.headers['mcp-session-id'] as string;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const notUtf8 = await fetch(`${stack.coordinator.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${C}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId },
      body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
    });
    expect(notUtf8.status).toBe(400);
    expect(((await notUtf8.json()) as { message: string }).message).toBe('the body is not valid UTF-8');
    const put = await mcp(C, sessionId, 'PUT');
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('POST, GET, DELETE');

    const stream = new AbortController();
    const headers = { authorization: `Bearer ${C}`, accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
    const get = await fetch(`${stack.coordinator.url}/mcp`, { headers, signal: stream.signal });
    expect(get.status).toBe(200);
    expect(get.headers.get('content-type')).toBe('text/event-stream');
    // One stream per session: a second is refused by the session's transport.
    expect((await fetch(`${stack.coordinator.url}/mcp`, { headers })).status).toBe(409);
    stream.abort();
    expect((await mcp(C, sessionId, 'DELETE')).status).toBe(200);
    expect((await mcp(C, sessionId, 'POST', JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }))).status).toBe(404);
  });

  it(`a key holds at most ${SESSIONS_PER_KEY} sessions: a new one closes its least recently used idle one`, async () => {
    const opened = [];
    for (let i = 0; i <= SESSIONS_PER_KEY; i++) opened.push(await connect(B, () => ({ action: 'cancel' })));
    const ids = opened.map((o) => o.transport.sessionId!);
    expect(new Set(ids).size).toBe(SESSIONS_PER_KEY + 1);
    const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect((await mcp(B, ids[0], 'POST', list)).status).toBe(404);
    for (const id of ids.slice(1)) expect((await mcp(B, id, 'POST', list)).status, id).toBe(200);
  });

  it('a key whose sessions are all answering calls is refused a new one (429) until one is idle', { timeout: 120_000 }, async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((r) => (release = r));
    let asked = 0;
    const holding = async (): Promise<ElicitResult> => (asked++, await released, { action: 'decline' });
    const busy = await Promise.all(Array.from({ length: SESSIONS_PER_KEY }, () => connect(C, holding)));
    const calls = busy.map(({ client }) => call(client, 'research', { topic: TOPIC, review: { mode: 'plan' }, wait: true, timeout_seconds: 240 }, LONG));
    for (const deadline = Date.now() + 60_000; asked < SESSIONS_PER_KEY && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
    expect(asked).toBe(SESSIONS_PER_KEY);
    await expect(connect(C, holding)).rejects.toThrow(/429|answering calls/);
    release();
    for (const r of await Promise.all(calls)) expect(jsonOf(r)).toMatchObject({ status: 'needs_review' });
    expect((await connect(C, holding)).transport.sessionId).toBeDefined();
  });
});
