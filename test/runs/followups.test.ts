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
/** Words no finding of the parent uses: the follow-up must search. */
const NEW_QUESTION = 'Which concrete arches hold back glacial lakes?';
/** More on the parent's own topic: everything it found bears on it. */
const SAME_TOPIC = 'Tell me more about the Kestrel River';

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

  /** A follow-up and a fresh run on the same question, one after the other; what each cited and dispatched. */
  const followAndFresh = async (question: string) => {
    const started = Date.now();
    const res = await followUp(A, parentId, { question });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    expect(await a.waitForEnd(id)).toBe('done');
    const followWall = Date.now() - started;
    const freshStart = Date.now();
    const fresh = await a.submit({ topic: question });
    expect(await a.waitForEnd(fresh.id)).toBe('done');
    const freshWall = Date.now() - freshStart;
    const [child, freshRun, report] = await Promise.all([a.run(id), a.run(fresh.id), a.report(id)]);
    const parentCited = new Set((await a.report(parentId)).sources.map((s) => s.id));
    const cited = new Set(report.sources.map((s) => s.id));
    const reused = [...parentCited].filter((s) => cited.has(s));
    console.log(
      `"${question}": follow-up ${followWall} ms, ${child.rounds.length} rounds, ${child.counters.tasksDispatched} tasks; fresh ${freshWall} ms, ${freshRun.rounds.length} rounds, ${freshRun.counters.tasksDispatched} tasks; ` +
        `the follow-up cites ${cited.size} sources, ${reused.length} of the parent's ${parentCited.size}`,
    );
    return { child, freshRun, parentCited, cited, reused };
  };

  it('a follow-up on the parent’s topic cites at least half of the parent’s sources and dispatches fewer tasks than a fresh run', async () => {
    const { child, freshRun, parentCited, reused } = await followAndFresh(SAME_TOPIC);
    expect(reused.length).toBeGreaterThanOrEqual(parentCited.size / 2);
    expect(child.counters.tasksDispatched).toBeLessThan(freshRun.counters.tasksDispatched);
    // The parent's evidence covers every subtopic of the plan: nothing is searched again, the writer cites it.
    expect(await searchTasks(child.id)).toEqual([]);
    expect(child.plan!.subtopics.length).toBeGreaterThan(1);
  });

  it('a narrower follow-up cites the parent’s sources that bear on it, and only those, with fewer tasks than a fresh run', async () => {
    const { child, freshRun, parentCited, cited } = await followAndFresh(QUESTION);
    // The fixture's ids say which documents are about dams and fisheries; the floods and navigation ones are not asked about.
    const bearing = [...parentCited].filter((s) => /^kr-(dams|fisheries)-/.test(s));
    expect(bearing.length).toBeGreaterThan(0);
    expect(bearing.filter((s) => cited.has(s)).length).toBeGreaterThanOrEqual(bearing.length / 2);
    expect([...cited].filter((s) => /^kr-(floods|navigation)-/.test(s))).toEqual([]);
    expect(child.counters.tasksDispatched).toBeLessThan(freshRun.counters.tasksDispatched);
  });

  it('starts from the parent’s ledger, searches past its sources for what is new, and links both ways', async () => {
    const parentSources = (await a.run(parentId)).counters.sources;
    const parentLedger = new Set((await a.report(parentId)).sources.map((s) => s.id));
    const started = Date.now();
    const res = await followUp(A, parentId, { question: NEW_QUESTION });
    expect(res.status).toBe(202);
    const { id, parentId: linked } = (await res.json()) as { id: string; parentId: string };
    expect(linked).toBe(parentId);
    expect(await a.waitForEnd(id)).toBe('done');
    const followWall = Date.now() - started;

    const child = await a.run(id);
    expect(child).toMatchObject({ parentId, topic: NEW_QUESTION, engine: 'corpus', corpus: 'kestrel' });
    expect((await a.run(parentId)).followups).toContain(id);
    // Every parent source is known to the child's searches: they look only for what is new.
    const tasks = await searchTasks(id);
    expect(tasks.length).toBeGreaterThan(0);
    for (const t of tasks) for (const s of parentLedger) expect(t.knownSourceIds).toContain(s);
    // The parent's sources are in the child's ledger and can be cited without being searched again.
    const report = await a.report(id);
    const reused = report.sources.filter((s) => parentLedger.has(s.id)).length;
    for (const s of parentLedger) expect((await fetch(`${stack.coordinator.url}/v1/research/${id}/sources/${encodeURIComponent(s)}`, { headers: { authorization: `Bearer ${A}` } })).status).toBe(200);

    const freshStart = Date.now();
    const fresh = await a.submit({ topic: NEW_QUESTION });
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
