/**
 * Questions that keep watch (issue 47): a watch over an ingested folder asks its question on a BullMQ job scheduler;
 * after a file is added to the folder (and the folder ingested again), the next run's "what changed" names exactly the
 * new file's passages, and `watch.changed` goes out for that run only. Watches are their key's own.
 */
import { WATCH_QUEUE, type Watch } from '@orrery/protocol';
import { queuePrefix } from '@orrery/runtime';
import { Queue } from 'bullmq';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { call as callTool, callError, jsonOf } from '../mcp/mcp-cases';
import { waitFor } from '../support/service-processes';
import { type Stack, startStack } from '../support/stack';
import { newApiKey, REDIS_URL } from '../support/test-env';
import { WebhookReceiver } from '../support/webhook-receiver';

const NOTES: Record<string, string> = {
  'harbour.md': '# The harbour of Ossery\n\nThe harbour of Ossery was dredged in 1990 so that larger ships could dock at the harbour.\n\nFishing boats in the harbour of Ossery land salmon every morning.\n',
  'ferry.md': '# Ferries\n\nThe ferry from the harbour of Ossery crosses to Brant twelve times a day.\n\nThe harbour of Ossery ferry carries cars and bicycles.\n',
  'storms.md': '# Storms\n\nWinter storms closed the harbour of Ossery for nine days in 2014.\n\nA new breakwater now shelters the harbour of Ossery from storms.\n',
};
const ADDED = { 'tariffs.md': '# Tariffs\n\nTariffs on salmon shipped from the harbour of Ossery were raised in 2025.\n\nThe harbour of Ossery now charges a landing fee on every salmon catch.\n' };

describe('watches', () => {
  const folder = mkdtempSync(join(tmpdir(), 'orrery-watch-'));
  for (const [name, text] of Object.entries(NOTES)) writeFileSync(join(folder, name), text);
  const [owner, other] = [newApiKey(), newApiKey()];
  let stack: Stack;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    stack = await startStack('watches', {
      workers: 1,
      env: { API_KEYS: `${owner},${other}`, ADMIN_API_KEYS: owner, INGEST_ROOTS: folder, WATCH_MIN_EVERY_SECONDS: '2', WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}` },
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  const call = async (method: string, path: string, key: string, body: unknown = method === 'POST' ? {} : undefined) => {
    const res = await fetch(`${stack.coordinator.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
    return { status: res.status, body: res.status === 204 ? undefined : ((await res.json()) as Record<string, unknown>) };
  };
  const ingest = async () => {
    expect((await call('POST', '/v1/corpora', owner, { name: 'notes', path: folder })).status).toBe(202);
    await waitFor(async () => (await call('GET', '/v1/corpora/notes', owner)).body?.['status'] === 'ready', 60_000, 'the folder to be ingested');
  };
  const watchOf = async (id: string) => (await call('GET', `/v1/watches/${id}`, owner)).body as unknown as Watch;
  const settled = async (id: string, n: number) => {
    await waitFor(async () => {
      const w = await watchOf(id);
      return w.runs.length >= n && w.runs.slice(0, n).every((r) => r.status === 'done' || r.status === 'failed' || r.status === 'cancelled');
    }, 120_000, `run ${n} of the watch`);
    return watchOf(id);
  };

  it('reports exactly what the added file brought, and sends watch.changed only for that run', async () => {
    await ingest();
    expect((await call('POST', '/v1/watches', owner, { question: 'Salmon at the harbour of Ossery', every: '1s', corpus: 'notes' })).status).toBe(400);
    const created = await call('POST', '/v1/watches', owner, { question: 'Salmon at the harbour of Ossery', every: 3600, corpus: 'notes', webhook: { url: receiver.url('/watch') } });
    expect(created.status).toBe(201);
    const id = created.body!['id'] as string;
    // A scheduler of BullMQ's own holds the schedule.
    const watches = new Queue(WATCH_QUEUE, { connection: { url: REDIS_URL }, prefix: queuePrefix(stack.prefix) });
    try {
      expect(await watches.getJobScheduler(id)).toMatchObject({ key: id, every: 3_600_000 });
    } finally {
      await watches.close();
    }

    const first = await settled(id, 1);
    expect(first.runs[0]).toMatchObject({ status: 'done', changed: false });
    expect(first.runs[0]!.changes).toBeUndefined();
    const firstReport = (await call('GET', `/v1/research/${first.runs[0]!.runId}/report`, owner)).body as { sources: Array<{ id: string }> };
    expect(firstReport.sources.length).toBeGreaterThan(0);

    // A file is added to the folder and the folder ingested again; resumed, the watch asks again at once.
    expect((await call('POST', `/v1/watches/${id}/pause`, owner)).body).toMatchObject({ status: 'paused' });
    for (const [name, text] of Object.entries(ADDED)) writeFileSync(join(folder, name), text);
    await ingest();
    expect((await call('POST', `/v1/watches/${id}/resume`, owner)).body).toMatchObject({ status: 'active' });
    const second = await settled(id, 2);
    const changes = second.runs[1]!.changes!;
    expect(second.runs[1]!.changed).toBe(true);
    // The added file's passage, and nothing else.
    expect(changes.newSources).toEqual([{ id: 'tariffs.md#1', title: 'tariffs.md > Tariffs' }]);
    expect(changes.unsupported).toEqual([]);
    expect(changes.summary).toMatch(/^New sources: /);

    await waitFor(() => receiver.on('/watch').length === 1, 30_000, 'the watch.changed webhook');
    const sent = JSON.parse(receiver.on('/watch')[0]!.body) as { type: string; data: { id: string; watch: { id: string; changes: typeof changes } } };
    expect(sent).toMatchObject({ type: 'watch.changed', data: { id: second.runs[1]!.runId, watch: { id, changes } } });

    // Paused and resumed again with nothing changed: a run, no change, no webhook.
    await call('POST', `/v1/watches/${id}/pause`, owner);
    await call('POST', `/v1/watches/${id}/resume`, owner);
    const third = await settled(id, 3);
    expect(third.runs[2]).toMatchObject({ status: 'done', changed: false, changes: { newSources: [], unsupported: [], answerChanged: false, summary: '' } });
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.on('/watch')).toHaveLength(1);
  });

  it('asks on its schedule; a watch is its key’s own: listed, paused and deleted by it alone', async () => {
    const created = await call('POST', '/v1/watches', other, { question: 'What happens at the harbour of Ossery?', every: 2, corpus: 'notes' });
    expect(created.status).toBe(201);
    const id = created.body!['id'] as string;
    expect((await call('GET', `/v1/watches/${id}`, owner)).status).toBe(200); // an admin sees every watch
    expect(((await call('GET', '/v1/watches', owner)).body!['watches'] as Watch[]).map((w) => w.id)).not.toContain(id);
    expect(((await call('GET', '/v1/watches', other)).body!['watches'] as Watch[]).map((w) => w.id)).toEqual([id]);
    // Every 2 s: a second run comes without anyone asking.
    await waitFor(async () => ((await call('GET', `/v1/watches/${id}`, other)).body as unknown as Watch).runs.length >= 2, 60_000, 'the scheduler to run the watch twice');
    expect((await call('POST', `/v1/watches/${id}/pause`, other)).status).toBe(201);
    const paused = ((await call('GET', `/v1/watches/${id}`, other)).body as unknown as Watch).runs.length;
    await new Promise((r) => setTimeout(r, 5000));
    expect(((await call('GET', `/v1/watches/${id}`, other)).body as unknown as Watch).runs.length).toBe(paused);
    expect((await call('DELETE', `/v1/watches/${id}`, other)).status).toBe(204);
    expect((await call('GET', `/v1/watches/${id}`, other)).status).toBe(404);
  });

  it('over MCP: create_watch, list_watches and change_watch act on the caller\'s own watches', async () => {
    const client = new Client({ name: 'orrery-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.coordinator.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${other}` } } }));
    try {
      const created = jsonOf<Watch>(await callTool(client, 'create_watch', { question: 'Salmon at the harbour of Ossery', every: '1h', corpus: 'notes' }));
      expect(created).toMatchObject({ everySeconds: 3600, status: 'active' });
      expect(jsonOf<{ watches: Watch[] }>(await callTool(client, 'list_watches', {})).watches.map((w) => w.id)).toEqual([created.id]);
      expect(jsonOf<Watch>(await callTool(client, 'change_watch', { id: created.id, action: 'pause' })).status).toBe('paused');
      expect(await callError(client, 'create_watch', { question: 'Salmon at the harbour of Ossery', every: 1 })).toMatch(/at least 2 seconds/);
      expect(jsonOf(await callTool(client, 'change_watch', { id: created.id, action: 'delete' }))).toMatchObject({ deleted: true });
      expect(jsonOf<{ watches: Watch[] }>(await callTool(client, 'list_watches', {})).watches).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
