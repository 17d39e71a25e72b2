import type { Client } from '@modelcontextprotocol/client';
import { MAX_PIVOTS, PIVOT_COOLDOWN } from '@orrery/decisions';
import { expect } from 'vitest';

export const TOOLS = ['answer_review', 'cancel_research', 'change_watch', 'create_watch', 'export_report', 'fetch', 'get_report', 'judge', 'list_runs', 'list_watches', 'research', 'research_status', 'search'];

type Content = Array<{ type: string; text?: string }>;
export const textOf = (r: { content?: unknown }) => ((r.content ?? []) as Content).map((c) => c.text ?? '').join('\n');
export const jsonOf = <T = Record<string, unknown>>(r: { content?: unknown }) => JSON.parse(textOf(r)) as T;

/** Calls a tool and expects a tool result (not an error); returns it. */
export async function call(client: Client, name: string, args: Record<string, unknown>, opts: Parameters<Client['callTool']>[1] = {}) {
  const r = await client.callTool({ name, arguments: args }, opts);
  expect(r.isError, `${name}: ${textOf(r)}`).toBeFalsy();
  return r;
}

/** Calls a tool and expects a tool error; returns its text. */
export async function callError(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const r = await client.callTool({ name, arguments: args });
  expect(r.isError, `${name} should fail: ${textOf(r)}`).toBe(true);
  return textOf(r);
}

/** `research` with wait on the bundled speeches: progress notifications in order, then a cited Markdown report. */
export async function researchWithProgress(client: Client): Promise<{ id: string; messages: string[]; report: string }> {
  const messages: string[] = [];
  const progress: number[] = [];
  const r = await call(
    client,
    'research',
    { topic: 'Tariffs and trade in the State of the Union', corpus: 'sotu', wait: true, timeout_seconds: 240 },
    { onprogress: (p) => (progress.push(p.progress), messages.push(p.message ?? '')), timeout: 300_000, resetTimeoutOnProgress: true },
  );
  const report = textOf(r);
  const id = (r.structuredContent as { id: string }).id;
  expect((r.structuredContent as { status: string }).status).toBe('done');
  expect(report).toMatch(/\[\d+\]/);
  expect((r.structuredContent as { citations: number }).citations).toBeGreaterThan(0);
  // Strictly increasing progress, and the run's story in its order: plan, round, tasks, round done, report, end.
  for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThan(progress[i - 1]!);
  const first = (re: RegExp) => messages.findIndex((m) => re.test(m));
  const order = [/^plan: \d+ subtopics/, /^round 1: \d+ tasks dispatched/, /^round 1: task done/, /^round 1 done: coverage/, /^report: /, /^run done/].map(first);
  expect(order.every((i) => i >= 0), messages.join('\n')).toBe(true);
  expect([...order].sort((a, b) => a - b)).toEqual(order);
  return { id, messages, report };
}

/** `judge` verdicts for the three signals, and the cooldown with a history. */
export async function judgeCases(client: Client): Promise<void> {
  const base = { goal: 'find why the build fails', state_summary: 'reading build logs' };
  const cont = jsonOf(await call(client, 'judge', { ...base, step: 4, recent_actions: [{ action: 'read log a', result: 'error in linker' }], state_version: 9 }));
  expect(cont).toMatchObject({ signal: 'continue', level: 'L0', state_version: 9, rule: 'progress' });
  const stop = jsonOf(await call(client, 'judge', { ...base, step: 20, max_steps: 20 }));
  expect(stop).toMatchObject({ signal: 'stop', level: 'L0', rule: 'step-budget' });
  const loop = ['grep linker', 'grep linker', 'grep  Linker'];
  const pivot = jsonOf(await call(client, 'judge', { ...base, step: 10, recent_actions: loop }));
  expect(pivot).toMatchObject({ signal: 'pivot', rule: 'repeated-action' });
  expect(typeof pivot.confidence).toBe('number');
  // A pivot inside the cooldown becomes stop (the loop goes on: the last pivot did not help); at the cooldown it
  // is allowed, unless that one pivot already reached the cap.
  const cooled = jsonOf(await call(client, 'judge', { ...base, step: 10, recent_actions: loop, history: [{ step: 10 - (PIVOT_COOLDOWN - 1), signal: 'pivot' }] }));
  expect(cooled).toMatchObject({ signal: 'stop', rule: 'pivot-cooldown-stop' });
  const bare = ['pivot', ...Array.from({ length: PIVOT_COOLDOWN - 1 }, () => 'continue')];
  const allowed = jsonOf(await call(client, 'judge', { ...base, step: 10, recent_actions: loop, history: bare }));
  expect(allowed).toMatchObject(MAX_PIVOTS > 1 ? { signal: 'pivot', rule: 'repeated-action' } : { signal: 'stop', rule: 'pivot-cap-stop' });
}

/** search → an id → fetch gives the passage back, title and URL included. */
export async function searchFetchRoundTrip(client: Client, corpus: string, query: string): Promise<void> {
  const { results } = jsonOf<{ results: Array<{ id: string; title: string; url: string; snippet: string }> }>(await call(client, 'search', { query, corpus, limit: 3 }));
  expect(results.length).toBeGreaterThan(0);
  const top = results[0]!;
  expect(top.id.startsWith(`${corpus}:`)).toBe(true);
  const doc = jsonOf<{ id: string; title: string; text: string; url: string }>(await call(client, 'fetch', { id: top.id }));
  expect(doc).toMatchObject({ id: top.id, title: top.title, url: top.url });
  expect(doc.text.startsWith(top.snippet.replace(/…$/, ''))).toBe(true);
}

/** Bad arguments are tool errors naming the field, and create no run. */
export async function badArgumentCases(client: Client): Promise<void> {
  const before = jsonOf<{ runs: unknown[] }>(await call(client, 'list_runs', {})).runs.length;
  expect(await callError(client, 'research', { topic: 'ok topic', budget: { maxTasks: -1 } })).toMatch(/maxTasks/);
  expect(await callError(client, 'research', { topic: 42 })).toMatch(/topic/);
  expect(await callError(client, 'research', { topic: 'ok topic', corpus: 'no-such-corpus' })).toMatch(/corpus/);
  // The REST API's reason for a malformed webhook URL, on a new run and on a follow-up.
  for (const url of ['not a url', 'http://a:99999/']) {
    expect(await callError(client, 'research', { topic: 'ok topic', webhook: { url } })).toMatch(/webhook\.url: webhook\.url must be an absolute http\(s\) URL/);
    expect(await callError(client, 'research', { topic: 'ok topic', parent: '6f1c1c3e-1d2b-4c4f-9a7e-2b9f5d7c8e90', webhook: { url } })).toMatch(/webhook\.url: webhook\.url must be an absolute http\(s\) URL/);
  }
  expect(await callError(client, 'judge', { goal: 'g', step: 'one', state_summary: 's' })).toMatch(/step/);
  expect(await callError(client, 'judge', { goal: 'g', step: 1 })).toMatch(/state_summary/);
  expect(await callError(client, 'research_status', { id: 'not-a-uuid' })).toMatch(/id/);
  expect(await callError(client, 'research_status', { id: '6f1c1c3e-1d2b-4c4f-9a7e-2b9f5d7c8e90' })).toMatch(/not found/);
  expect(await callError(client, 'fetch', { id: 'sotu:no-such-passage' })).toMatch(/no passage/);
  const after = jsonOf<{ runs: unknown[] }>(await call(client, 'list_runs', {})).runs.length;
  expect(after).toBe(before);
}
