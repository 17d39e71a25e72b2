import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { SubagentTask } from '@orrery/protocol';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrreryClient } from '../../apps/cli/src/client/orrery-client';
import { call, jsonOf } from '../mcp/mcp-cases';
import { type Stack, startStack } from '../support/stack';
import { newApiKey, ROOT } from '../support/test-env';

const A = newApiKey();
const B = newApiKey();
const PARENT_TOPIC = 'The Kestrel River';
const QUESTION = 'How did the Harlow Dam change the Kestrel River salmon?';

describe('follow-up questions on a finished run', () => {
  let stack: Stack;
  let a: OrreryClient;
  let parentId: string;
  const followUp = (key: string, id: string, body: unknown) =>
    fetch(`${stack.coordinator.url}/v1/research/${id}/followups`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const searchTasks = async (id: string) =>
    (await stack.jobs('subagents')).filter((j) => j.id!.startsWith(id) && j.name === 'search').map((j) => j.data as Extract<SubagentTask, { kind: 'search' }>);

  beforeAll(async () => {
    stack = await startStack('followups', { workers: 1, env: { API_KEYS: `${A},${B}` } });
    a = new OrreryClient(stack.coordinator.url, A);
    parentId = (await a.submit({ topic: PARENT_TOPIC })).id;
    expect(await a.waitForEnd(parentId)).toBe('done');
  });
  afterAll(async () => stack?.stop());

  it('starts from the parent’s ledger, searches past its sources, cites them again, and links both ways', async () => {
    const parentSources = (await a.run(parentId)).counters.sources;
    const parentLedger = new Set((await a.report(parentId)).sources.map((s) => s.id));
    const started = Date.now();
    const res = await followUp(A, parentId, { question: QUESTION });
    expect(res.status).toBe(202);
    const { id, parentId: linked } = (await res.json()) as { id: string; parentId: string };
    expect(linked).toBe(parentId);
    expect(await a.waitForEnd(id)).toBe('done');
    const followWall = Date.now() - started;

    const child = await a.run(id);
    expect(child).toMatchObject({ parentId, topic: QUESTION, engine: 'corpus', corpus: 'kestrel' });
    expect((await a.run(parentId)).followups).toEqual([id]);
    // Every parent source is known to the child's searches: they look only for what is new.
    const tasks = await searchTasks(id);
    expect(tasks.length).toBeGreaterThan(0);
    for (const t of tasks) for (const s of parentLedger) expect(t.knownSourceIds).toContain(s);
    // The parent's sources are in the child's ledger and can be cited without being searched again.
    const report = await a.report(id);
    const reused = report.sources.filter((s) => parentLedger.has(s.id)).length;
    expect(reused).toBeGreaterThan(0);
    for (const s of parentLedger) expect((await fetch(`${stack.coordinator.url}/v1/research/${id}/sources/${encodeURIComponent(s)}`, { headers: { authorization: `Bearer ${A}` } })).status).toBe(200);

    const freshStart = Date.now();
    const fresh = await a.submit({ topic: QUESTION });
    expect(await a.waitForEnd(fresh.id)).toBe('done');
    const freshWall = Date.now() - freshStart;
    const freshRun = await a.run(fresh.id);
    console.log(
      `follow-up: ${followWall} ms, ${child.rounds.length} rounds, ${child.counters.tasksDispatched} tasks; fresh: ${freshWall} ms, ${freshRun.rounds.length} rounds, ${freshRun.counters.tasksDispatched} tasks; ` +
        `parent ledger ${parentLedger.size} cited sources (${parentSources} in all), follow-up report cites ${report.sources.length}, ${reused} of them the parent's`,
    );
  });

  it('only the parent’s owner may ask one, and only on a run that is done', async () => {
    expect((await followUp(B, parentId, { question: QUESTION })).status).toBe(404);
    expect((await followUp(A, '6f1c1c3e-1d2b-4c4f-9a7e-2b9f5d7c8e90', { question: QUESTION })).status).toBe(404);
    const bad = await followUp(A, parentId, { question: '' });
    expect(bad.status).toBe(400);
    const pending = await a.submit({ topic: PARENT_TOPIC, review: 'plan' });
    const res = await followUp(A, pending.id, { question: QUESTION });
    expect(res.status).toBe(409);
    await a.cancel(pending.id);
  });

  it('from the CLI (--follow) and over MCP (research with parent)', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [resolve(ROOT, 'apps/cli/dist/research.js'), QUESTION, '--json', '--follow', parentId], {
      env: { ...process.env, ORRERY_URL: stack.coordinator.url, ORRERY_API_KEY: A },
      maxBuffer: 16 * 1024 * 1024,
    });
    expect((JSON.parse(stdout) as { topic: string }).topic).toBe(QUESTION);

    const client = new Client({ name: 'orrery-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.coordinator.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${A}` } } }));
    try {
      const { id } = jsonOf<{ id: string }>(await call(client, 'research', { topic: QUESTION, parent: parentId }));
      expect(await a.waitForEnd(id)).toBe('done');
      expect((await a.run(id)).parentId).toBe(parentId);
      expect((await a.run(parentId)).followups).toContain(id);
    } finally {
      await client.close();
    }
  });
});
