/**
 * MCP `research` with wait past the key's event-stream cap (SSE_MAX_STREAMS_PER_KEY=1 here) on a real coordinator:
 * refused before any run is created, the place given back after a wait that ends and after a request that fails.
 * No workers run, so a run stays live and its SSE stream holds the key's one place for as long as the test wants.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';
import { newApiKey } from '../support/test-env';
import { call, callError, jsonOf } from './mcp-cases';

const A = newApiKey();

describe('MCP research with wait past the key’s stream cap', () => {
  let stack: Stack;
  let client: Client;
  const runCount = async () => jsonOf<{ runs: unknown[] }>(await call(client, 'list_runs', {})).runs.length;

  beforeAll(async () => {
    stack = await startStack('mcp-stream-cap', { workers: 0, env: { API_KEYS: A, HOST: '127.0.0.1', SSE_MAX_STREAMS_PER_KEY: '1' } });
    client = new Client({ name: 'orrery-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.coordinator.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${A}` } } }));
  });
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await stack?.stop();
  });

  it('is refused before a run is created while the key’s one stream is taken, and waits again once it is free', async () => {
    const held = jsonOf<{ id: string }>(await call(client, 'research', { topic: 'Kestrel River bridges' }));
    const sse = new AbortController();
    const res = await fetch(`${stack.coordinator.url}/v1/research/${held.id}/events`, { headers: { authorization: `Bearer ${A}` }, signal: sse.signal });
    expect(res.status).toBe(200);
    const before = await runCount();
    try {
      const refused = await callError(client, 'research', { topic: 'Kestrel River ferries', wait: true, timeout_seconds: 1 });
      expect(await runCount()).toBe(before);
      expect(refused).toMatch(/follows 1 event streams already/);
      expect(refused).toMatch(/no run was started/);
    } finally {
      sse.abort();
      await res.body?.cancel().catch(() => undefined);
    }

    // Once the stream closes its place is free: the wait runs, and what it answers names the run.
    let waited: Record<string, unknown> | undefined;
    for (let i = 0; i < 50 && !waited; i++) {
      const r = await client.callTool({ name: 'research', arguments: { topic: 'Kestrel River ferries', wait: true, timeout_seconds: 1 } });
      if (!r.isError) waited = jsonOf(r);
      else await new Promise((done) => setTimeout(done, 100));
    }
    expect(waited).toMatchObject({ id: expect.any(String), message: expect.stringMatching(/still \w+ after 1 s/) });
    expect(await runCount()).toBe(before + 1);
  });

  it('gives the place back after a wait that ends, and after a request that fails', async () => {
    const first = jsonOf<{ id: string }>(await call(client, 'research', { topic: 'Kestrel River locks', wait: true, timeout_seconds: 1 }));
    expect(first.id).toEqual(expect.any(String));
    expect(await callError(client, 'research', { topic: 'Kestrel River locks', corpus: 'no-such-corpus', wait: true })).toMatch(/corpus/);
    const second = jsonOf<{ id: string }>(await call(client, 'research', { topic: 'Kestrel River mills', wait: true, timeout_seconds: 1 }));
    expect(second.id).not.toBe(first.id);
  });
});
