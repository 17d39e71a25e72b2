/**
 * The MCP server on stdio (`orrery-mcp`), spawned as an agent spawns it and driven by the official MCP client SDK:
 * against a running server (ORRERY_URL, with a key), and with the service started in the process itself.
 */
import { Client, type ElicitResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';
import { SPAWN_ENV, dropPrefix, newApiKey, REDIS_URL, ROOT, uniquePrefix } from '../support/test-env';
import { badArgumentCases, call, jsonOf, judgeCases, researchWithProgress, searchFetchRoundTrip, TOOLS } from './mcp-cases';

const BIN = resolve(ROOT, 'apps', 'cli', 'dist', 'mcp.js');
const KEY = newApiKey();

async function spawnMcp(env: Record<string, string>, elicit?: () => ElicitResult): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN], env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...SPAWN_ENV, ...env }, stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (d) => (err += d));
  const client = new Client({ name: 'orrery-test', version: '1.0.0' }, elicit ? { capabilities: { elicitation: {} } } : {});
  if (elicit) client.setRequestHandler('elicitation/create', elicit);
  await client.connect(transport);
  return { client, stderr: () => err };
}

describe('MCP on stdio, against ORRERY_URL', () => {
  let stack: Stack;
  let mcp: Awaited<ReturnType<typeof spawnMcp>>;
  beforeAll(async () => {
    stack = await startStack('mcp-stdio', { workers: 1, env: { API_KEYS: KEY } });
    mcp = await spawnMcp({ ORRERY_URL: stack.coordinator.url, ORRERY_API_KEY: KEY });
  });
  afterAll(async () => {
    await mcp?.client.close().catch(() => undefined);
    await stack?.stop();
  });

  it('lists the tools; logs go to stderr', async () => {
    expect((await mcp.client.listTools()).tools.map((t) => t.name).sort()).toEqual(TOOLS);
    expect(mcp.stderr()).toContain(`using the server at ${stack.coordinator.url}`);
  });

  it('answers a line that is not UTF-8 with a parse error naming its id, and forwards nothing of it', async () => {
    const runs = async () => ((await (await fetch(`${stack.coordinator.url}/v1/research`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as { runs: unknown[] }).runs.length;
    const before = await runs();
    const child = spawn(process.execPath, [BIN], { env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...SPAWN_ENV, ORRERY_URL: stack.coordinator.url, ORRERY_API_KEY: KEY }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    try {
      const head = '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"research","arguments":{"topic":"Kestrel ';
      const bad = Buffer.concat([Buffer.from(head), Buffer.from([0xff, 0xc3]), Buffer.from(' River"}}}\n')]);
      child.stdin.write(bad);
      for (const deadline = Date.now() + 10_000; !out.includes('\n') && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
      expect(JSON.parse(out.split('\n')[0]!)).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32700, message: 'Parse error: the message is not valid UTF-8' } });
      expect(await runs()).toBe(before);
    } finally {
      child.kill('SIGTERM');
    }
  });

  // The research call itself may take 240 s on a loaded machine (researchWithProgress); the test gives it that.
  it('research with wait reaches a cited report, progress in order, as the key’s own run', { timeout: 300_000 }, async () => {
    const { id } = await researchWithProgress(mcp.client);
    expect((await stack.client.run(id).catch((e: Error) => e)) instanceof Error).toBe(true); // keyless REST client: 401
    const res = await fetch(`${stack.coordinator.url}/v1/research/${id}`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(((await res.json()) as { status: string }).status).toBe('done');
  });

  it('passes a plan review by elicitation both ways: the person behind the stdio client approves the plan in place', { timeout: 300_000 }, async () => {
    let asked = 0;
    const approving = await spawnMcp({ ORRERY_URL: stack.coordinator.url, ORRERY_API_KEY: KEY }, () => (asked++, { action: 'accept', content: { decision: 'approve' } }));
    try {
      const r = await call(approving.client, 'research', { topic: 'The Kestrel River', review: { mode: 'plan' }, wait: true, timeout_seconds: 240 }, { timeout: 300_000, resetTimeoutOnProgress: true });
      expect(r.structuredContent).toMatchObject({ status: 'done' });
      expect(asked).toBe(1);
    } finally {
      await approving.client.close().catch(() => undefined);
    }
  });

  it('judge verdicts and cooldown; search/fetch round-trip; bad arguments are tool errors', async () => {
    await judgeCases(mcp.client);
    await searchFetchRoundTrip(mcp.client, 'kestrel', 'Kestrel River flood');
    await badArgumentCases(mcp.client);
  });
});

describe('MCP on stdio, service started in-process', () => {
  const prefix = uniquePrefix('mcp-local');
  let mcp: Awaited<ReturnType<typeof spawnMcp>>;
  beforeAll(async () => {
    mcp = await spawnMcp({ REDIS_URL, QUEUE_PREFIX: prefix, ENGINE: 'corpus' });
  });
  afterAll(async () => {
    await mcp?.client.close().catch(() => undefined);
    await dropPrefix(prefix);
  });

  it('serves the tools from the coordinator and worker it started', async () => {
    expect((await mcp.client.listTools()).tools.map((t) => t.name).sort()).toEqual(TOOLS);
    expect(mcp.stderr()).toContain('starting the coordinator and a worker in-process');
    const v = jsonOf(await call(mcp.client, 'judge', { goal: 'g', step: 2, max_steps: 2, state_summary: 's' }));
    expect(v).toMatchObject({ signal: 'stop', level: 'L0' });
    const started = jsonOf<{ id: string }>(await call(mcp.client, 'research', { topic: 'Kestrel test run', engine: 'simulated' }));
    expect(jsonOf(await call(mcp.client, 'research_status', { id: started.id })).id).toBe(started.id);
  });
});
